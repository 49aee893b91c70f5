#!/usr/bin/python3
"""Drives a REAL browser through a provider's real login page to the app's redirect.

browser_login.py --browser chromium|firefox --profile DIR --url AUTHORIZE_URL
                 [--username U --password P] [--expect-no-form] [--g-continue]
                 [--screenshot PNG] [--wait-file FILE] [--display :N]
                 [--allow-origin ORIGIN] [--policy-root DIR] [--timeout S]

The redirect URI (and so the custom scheme, or the loopback listener) is read
from the authorize URL's `redirect_uri`. The browser is started by this script
(not by a driver), with PR_SET_PDEATHSIG=SIGKILL, so it dies with this script:

  chromium  /usr/lib/chromium/chromium --headless=new [--no-sandbox as root]
            --user-data-dir=DIR --remote-debugging-port=0 …; chromedriver
            (selenium) attaches to it. DIR/Default/Preferences gets
            protocol_handler.allowed_origin_protocol_pairs[ORIGIN][SCHEME]=true
            (what "Always allow" saves); ORIGIN defaults to the authorize URL's
            origin, the one that sends the 302. Chromium runs xdg-open.
  firefox   firefox-esr --marionette -remote-allow-system-access --headless
            --no-remote --profile DIR about:blank, spoken to over Marionette's
            TCP protocol (no geckodriver in Debian). DIR/user.js gets
            network.protocol-handler.external.SCHEME=true. Firefox runs GIO.

With --policy-root DIR neither allowance is pre-seeded: the browser runs in a
mount namespace of its own where /etc/chromium (or Firefox's
/usr/lib/firefox-esr/distribution, which it reads when /etc/firefox has no
policies) is DIR's, and the callback leaves it through the managed policies
there alone (`linkctl browser-policy SCHEME --origin … --root DIR`).

The login page is used as a person would: type the username and password,
click the sign-in button; tick unticked consent boxes and click "Grant
access"; click "Continue". The 302 to the redirect URI is seen inside the
browser (Chromium: DevTools Network events from chromedriver's performance
log; Firefox: an http-on-examine-response observer in the chrome context).
For a loopback redirect the script also waits until the browser has loaded
that page. --wait-file FILE: also wait until FILE has gained a line (e.g. the
handler's record) before closing the browser.

--expect-no-form: the remembered flow. The password field must never appear
(polled every 50 ms; in Chromium also a MutationObserver installed before any
page script runs); a click on "Continue" (Glewlwyd's signed-in page) is
allowed and made. --g-continue adds `g_continue` to the URL: Glewlwyd then
answers the 302 at once and no page is shown at all.

The browser is closed cleanly (cookies saved) before exit. Prints one JSON line:
{"ok", "browser", "redirect", "code", "state", "iss", "error", "form_seen",
"steps", "timings" (seconds from navigation start), "pss_mib", ...}.
Exit 0: driven to the redirect with a code; 3: redirect with error=; 1: failure
(message on stderr; JSON with "ok": false on stdout); 2: usage.
"""
import argparse, base64, ctypes, json, os, shutil, signal, socket, subprocess, sys, time, urllib.parse

from fixture_process import die_with_parent
from make_browser_entry import chromium_allow

CHROMIUM = "/usr/lib/chromium/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FIREFOX = "/usr/lib/firefox-esr/firefox-esr"
POLL = 0.05
RETRY = 3.0  # an action whose page has not changed after this long is made again

# One round trip per poll: what the page shows. Marks the document so actions are
# made at most once per document (a re-rendered login page gets them again).
STATE_JS = r"""
if (!window.__lrDoc) window.__lrDoc = Math.random().toString(36).slice(2);
const vis = e => !!e && !!(e.offsetWidth || e.offsetHeight || e.getClientRects().length);
const pw = document.querySelector('input[type=password]');
const body = document.querySelector('.card-body');
const boxes = [...document.querySelectorAll('input[type=checkbox][id^="grant-"]')].filter(vis);
const grant = [...(body ? body.querySelectorAll('button') : [])].filter(b => vis(b) && /grant/i.test(b.textContent));
const cont = [...document.querySelectorAll('.card-footer button.btn-success, button[title="Continue to client application"]')].filter(vis);
const alerts = [...document.querySelectorAll('.alert-danger, .toast-body')].map(e => e.textContent.trim()).filter(t => t);
return {doc: window.__lrDoc, url: location.href, ready: document.readyState,
        password: vis(pw), passwordSeen: !!window.__lrPasswordSeen || vis(pw),
        unchecked: boxes.filter(b => !b.checked).length, grant: grant.length, cont: cont.length,
        alerts: alerts, title: document.title};
"""

# Chromium: runs before any page script in every new document.
PASSWORD_OBSERVER_JS = r"""
(() => { const check = () => { if (document.querySelector('input[type=password]')) window.__lrPasswordSeen = true; };
  new MutationObserver(check).observe(document, {subtree: true, childList: true}); check(); })();
"""

# Firefox chrome context: records every 3xx the browser receives.
FIREFOX_OBSERVER_JS = r"""
if (!window.__lrSeen) {
  window.__lrSeen = [];
  window.__lrObs = { observe(subject, topic) {
    try {
      const ch = subject.QueryInterface(Ci.nsIHttpChannel);
      const st = ch.responseStatus;
      if (st >= 300 && st < 400) {
        let loc = null; try { loc = ch.getResponseHeader('Location'); } catch (e) {}
        window.__lrSeen.push({t: Date.now() / 1000, status: st, url: ch.URI.spec, location: loc});
      }
    } catch (e) {}
  } };
  Services.obs.addObserver(window.__lrObs, 'http-on-examine-response');
}
return true;
"""

FIREFOX_PREFS = {
    "marionette.port": 0,  # Firefox picks one and writes PROFILE/MarionetteActivePort
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "browser.startup.page": 0,
    "browser.aboutwelcome.enabled": False,
    "browser.sessionstore.resume_from_crash": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "datareporting.healthreport.uploadEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "app.update.disabledForTesting": True,
    "app.normandy.enabled": False,
    "nimbus.rsexperimentloader.enabled": False,
    "messaging-system.rsexperimentloader.enabled": False,
    "services.settings.server": "data:,#remote-settings-disabled",
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "browser.safebrowsing.downloads.enabled": False,
    "browser.safebrowsing.update.enabled": False,
    "extensions.update.enabled": False,
    "extensions.getAddons.cache.enabled": False,
    "browser.newtabpage.enabled": False,
    "browser.discovery.enabled": False,
    "signon.rememberSignons": False,
    "browser.translations.automaticallyPopup": False,
}


class Failure(Exception):
    pass


def wait_for(predicate, deadline, what, proc=None):
    """Polls predicate every POLL seconds until it returns a truthy value."""
    while True:
        v = predicate()
        if v:
            return v
        if proc is not None and proc.poll() is not None:
            raise Failure(f"the browser exited ({proc.returncode}) while waiting for {what}")
        if time.time() > deadline:
            raise Failure(f"timed out waiting for {what}")
        time.sleep(POLL)


def descendants(pid):
    kids = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                kids.setdefault(ppid, []).append(int(d))
            except (OSError, ValueError, IndexError):
                pass
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, []))
    return out


def pss_mib(pid):
    total = 0
    for p in descendants(pid):
        try:
            with open(f"/proc/{p}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return round(total / 1024, 1)


def reap_orphans(deadline):
    """Reaps adopted orphans; waits (until deadline) only for the browser's own helpers.
    Returns the pids still running (e.g. an app the handler started: never killed here)."""
    while True:
        try:
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        except ChildProcessError:
            pass
        left = [p for p in descendants(os.getpid())[1:]]
        helpers = []
        for p in left:
            try:
                with open(f"/proc/{p}/cmdline", "rb") as f:
                    exe = f.read().split(b"\0")[0]
            except OSError:
                continue
            if exe.startswith((b"/usr/lib/firefox-esr/", b"/usr/lib/chromium/")):
                helpers.append(p)
        if not helpers or time.time() > deadline:
            return left
        time.sleep(POLL)


def browser_env(display):
    env = dict(os.environ)
    for k in ("XDG_CURRENT_DESKTOP", "DESKTOP_SESSION", "WAYLAND_DISPLAY"):
        env.pop(k, None)
    env.setdefault("BROWSER", "false")  # xdg-utils would otherwise start x-www-browser for the scheme
    if display:
        env["DISPLAY"] = display
    return env


def line_count(path):
    try:
        with open(path, "rb") as f:
            return f.read().count(b"\n")
    except FileNotFoundError:
        return 0


# ---------------------------------------------------------------- Chromium

def written_port(path):
    """The port a browser announces in PATH (its first line: Chromium's
    DevToolsActivePort, Firefox's MarionetteActivePort), or None until it has."""
    try:
        with open(path) as f:
            first = f.readline().strip()
        return int(first) if first else None
    except (FileNotFoundError, ValueError):
        return None


def under_policies(argv, root, directory):
    """`argv` in a mount namespace of its own where `directory` (/etc/chromium, /etc/firefox-esr) is `root`'s copy:
    the browser reads the test's managed policies, and nothing on the machine changes."""
    if not root:
        return argv
    script = 'set -e; mount --bind "$0$1" "$1"; shift; exec "$@"'
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, root, directory] + argv


class Chromium:
    name = "chromium"
    policies = "/etc/chromium"

    def __init__(self, profile, allow_origin, scheme, env, deadline, log, policy_root=None):
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        self.profile = profile
        if scheme and not policy_root:
            chromium_allow(profile, [(allow_origin, scheme)])
        port_file = os.path.join(profile, "DevToolsActivePort")
        if os.path.exists(port_file):
            os.unlink(port_file)
        argv = [CHROMIUM, "--headless=new", "--user-data-dir=" + profile, "--no-first-run",
                "--no-default-browser-check", "--password-store=basic", "--disable-gpu",
                "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1",
                "--window-size=1280,900", "about:blank"]
        if os.geteuid() == 0:
            argv.insert(2, "--no-sandbox")
        argv = under_policies(argv, policy_root, self.policies)
        self.proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                     preexec_fn=die_with_parent, start_new_session=True)
        self.pid = self.proc.pid
        devtools = wait_for(lambda: written_port(port_file), deadline, "Chromium's DevToolsActivePort", self.proc)
        o = webdriver.ChromeOptions()
        o.debugger_address = f"127.0.0.1:{devtools}"
        o.page_load_strategy = "none"
        o.set_capability("goog:loggingPrefs", {"performance": "ALL"})
        service = Service(CHROMEDRIVER, env=env, log_path=os.devnull, popen_kw={"preexec_fn": die_with_parent})
        self.d = webdriver.Chrome(service=service, options=o)
        self.d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": PASSWORD_OBSERVER_JS})
        self.d.get_log("performance")  # drop startup noise

    def navigate(self, url):
        self.d.get(url)

    def state(self):
        return self.d.execute_script(STATE_JS)

    def find(self, css):
        from selenium.webdriver.common.by import By
        return [e for e in self.d.find_elements(By.CSS_SELECTOR, css) if e.is_displayed()]

    def find_xpath(self, xp):
        from selenium.webdriver.common.by import By
        return [e for e in self.d.find_elements(By.XPATH, xp) if e.is_displayed()]

    def type(self, el, text):
        el.clear()
        el.send_keys(text)

    def click(self, el):
        el.click()

    def redirects(self):
        """3xx responses the browser received since the last call: (time, status, from, location)."""
        out = []
        for entry in self.d.get_log("performance"):
            m = json.loads(entry["message"])["message"]
            if m.get("method") == "Network.requestWillBeSent" and "redirectResponse" in m["params"]:
                r = m["params"]["redirectResponse"]
                loc = m["params"]["request"]["url"]
                out.append((m["params"].get("wallTime", time.time()), r.get("status"), r.get("url"), loc))
        return out

    def screenshot(self, path):
        self.d.save_screenshot(path)

    def close(self, deadline):
        try:
            self.d.execute_cdp_cmd("Browser.close", {})
        except Exception:
            pass
        try:
            self.d.quit()  # attached session: ends chromedriver, not the browser
        except Exception:
            pass
        try:
            self.proc.wait(max(1, deadline - time.time()))
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


# ---------------------------------------------------------------- Firefox (Marionette)

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"


class Marionette:
    """Firefox's remote protocol: `LEN:JSON` frames, commands [0, id, name, params]."""

    def __init__(self, port, deadline):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=max(1, deadline - time.time()))
        self.buf = b""
        self.id = 0
        hello = self._recv()
        if hello.get("marionetteProtocol") != 3:
            raise Failure(f"unexpected Marionette greeting {hello}")

    def _recv(self):
        while b":" not in self.buf:
            chunk = self.s.recv(65536)
            if not chunk:
                raise Failure("Marionette connection closed")
            self.buf += chunk
        n, _, rest = self.buf.partition(b":")
        n = int(n)
        while len(rest) < n:
            chunk = self.s.recv(65536)
            if not chunk:
                raise Failure("Marionette connection closed")
            rest += chunk
        self.buf = rest[n:]
        return json.loads(rest[:n])

    def __call__(self, name, params=None, timeout=60):
        self.id += 1
        data = json.dumps([0, self.id, name, params or {}]).encode()
        self.s.settimeout(timeout)
        self.s.sendall(str(len(data)).encode() + b":" + data)
        while True:
            r = self._recv()
            if r[0] == 1 and r[1] == self.id:
                break
        if r[2]:
            raise MarionetteError(name, r[2])
        v = r[3]
        return v.get("value", v) if isinstance(v, dict) and set(v) == {"value"} else v


class MarionetteError(Exception):
    def __init__(self, command, err):
        super().__init__(f"{command}: {err.get('error')}: {err.get('message')}")
        self.error = err.get("error")


class Firefox:
    name = "firefox"
    # Firefox reads /etc/firefox/policies/policies.json, else this directory's policies.json: the test binds its copy
    # here (a directory that exists; /etc/firefox need not).
    policies = "/usr/lib/firefox-esr/distribution"

    def __init__(self, profile, allow_origin, scheme, env, deadline, log, policy_root=None):
        os.makedirs(profile, exist_ok=True)
        prefs = dict(FIREFOX_PREFS)
        if scheme and not policy_root:
            prefs[f"network.protocol-handler.external.{scheme}"] = True
        with open(os.path.join(profile, "user.js"), "w") as f:
            for k, v in prefs.items():
                f.write(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n")
        port_file = os.path.join(profile, "MarionetteActivePort")
        if os.path.exists(port_file):
            os.unlink(port_file)
        argv = under_policies([FIREFOX, "--marionette", "-remote-allow-system-access", "--headless", "--no-remote",
                               "--profile", profile, "about:blank"], policy_root, self.policies)
        env = dict(env, MOZ_HEADLESS="1", MOZ_CRASHREPORTER_DISABLE="1")
        self.proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                     preexec_fn=die_with_parent, start_new_session=True)
        self.pid = self.proc.pid
        mport = wait_for(lambda: written_port(port_file), deadline, "Firefox's MarionetteActivePort", self.proc)
        self.m = Marionette(mport, deadline)
        self.m("WebDriver:NewSession", {"capabilities": {"alwaysMatch": {"pageLoadStrategy": "none"}}},
               timeout=max(1, deadline - time.time()))
        self.m("Marionette:SetContext", {"value": "chrome"})
        self.m("WebDriver:ExecuteScript", {"script": FIREFOX_OBSERVER_JS, "args": []})
        self.m("Marionette:SetContext", {"value": "content"})
        self.seen = 0

    def navigate(self, url):
        # As if typed into the address bar. WebDriver:Navigate never answers when the
        # URL's 302 goes straight to an external protocol (the --g-continue case).
        self.m("Marionette:SetContext", {"value": "chrome"})
        try:
            self.m("WebDriver:ExecuteScript", {"script": "openTrustedLinkIn(arguments[0], 'current'); return true;",
                                               "args": [url]})
        finally:
            self.m("Marionette:SetContext", {"value": "content"})

    def state(self):
        try:
            return self.m("WebDriver:ExecuteScript", {"script": STATE_JS, "args": []})
        except MarionetteError as e:
            # navigation in progress / document replaced: try again on the next poll
            if e.error in ("no such window", "javascript error", "unknown error", "stale element reference"):
                return None
            raise

    def _els(self, using, value):
        return [e[ELEMENT] for e in self.m("WebDriver:FindElements", {"using": using, "value": value})
                if self.m("WebDriver:IsElementDisplayed", {"id": e[ELEMENT]})]

    def find(self, css):
        return self._els("css selector", css)

    def find_xpath(self, xp):
        return self._els("xpath", xp)

    def type(self, el, text):
        self.m("WebDriver:ElementClear", {"id": el})
        self.m("WebDriver:ElementSendKeys", {"id": el, "text": text})

    def click(self, el):
        # A pointer move/down/up, as a person clicks. WebDriver:ElementClick would also
        # work but then blocks ~5 s when the click starts a navigation that ends in an
        # external protocol handler (it waits for a page that never loads).
        self.m("WebDriver:ExecuteScript", {"script": "arguments[0].scrollIntoView({block: 'center'});",
                                           "args": [{ELEMENT: el}]})
        pointer = {"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": [
            {"type": "pointerMove", "duration": 0, "origin": {ELEMENT: el}, "x": 0, "y": 0},
            {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]}
        self.m("WebDriver:PerformActions", {"actions": [pointer]})
        self.m("WebDriver:ReleaseActions")

    def redirects(self):
        self.m("Marionette:SetContext", {"value": "chrome"})
        try:
            seen = self.m("WebDriver:ExecuteScript", {"script": "return window.__lrSeen", "args": []}) or []
        finally:
            self.m("Marionette:SetContext", {"value": "content"})
        new, self.seen = seen[self.seen:], len(seen)
        return [(r["t"], r["status"], r["url"], r["location"]) for r in new]

    def screenshot(self, path):
        data = self.m("WebDriver:TakeScreenshot", {"full": False, "hash": False})
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self, deadline):
        try:
            self.m("Marionette:Quit", {"flags": ["eAttemptQuit"]}, timeout=max(1, deadline - time.time()))
        except Exception:
            pass
        try:
            self.proc.wait(max(1, deadline - time.time()))
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


# ---------------------------------------------------------------- the login

def drive(b, a, redirect_uri, loopback, t_nav, deadline, result):
    steps, marks = result["steps"], result["timings"]
    done = {}  # document id -> {action: time made}; an action is made again after RETRY s
    submitted = set()
    redirect = None
    landed = False

    def mark(name):
        marks.setdefault(name, round(time.time() - t_nav, 3))

    while True:
        if time.time() > deadline:
            raise Failure("timed out; last page state: " + json.dumps(result.get("last_state")))
        if redirect is None:
            for t, status, src, loc in b.redirects():
                steps.append({"redirect": status, "from": src[:200], "to": (loc or "")[:200]})
                if loc and loc.startswith(redirect_uri):
                    redirect = loc
                    result["timings"]["redirect_received"] = round(t - t_nav, 3)
        st = b.state()
        if st:
            result["last_state"] = {k: st[k] for k in ("url", "password", "unchecked", "grant", "cont", "alerts")}
            if st["passwordSeen"]:
                if not result["form_seen"]:
                    mark("form_shown")
                result["form_seen"] = True
                if a.expect_no_form:
                    raise Failure("the login form appeared, but --expect-no-form was given")
        if redirect is not None:
            if not loopback:
                return redirect
            if st and st["url"].startswith(redirect_uri) and st["ready"] == "complete":
                landed = True
            if landed:
                mark("loopback_page_loaded")
                return redirect
        elif st and not st["url"].startswith(redirect_uri):
            acts = {k: t for k, t in done.setdefault(st["doc"], {}).items() if time.time() - t < RETRY}
            done[st["doc"]] = acts
            try:
                if st["password"]:
                    if "login" in acts:
                        pass  # submitted: wait for the page to move on
                    elif "login" in submitted:
                        raise Failure("login rejected: the form is still there " + f"{RETRY} s after sign-in"
                                      + (": " + "; ".join(st["alerts"]) if st["alerts"] else ""))
                    elif a.username is None or a.password is None:
                        raise Failure("the login form appeared and no --username/--password was given")
                    else:
                        user, pw, ok = b.find("#username"), b.find("#password"), b.find("#loginbut")
                        if user and pw and ok:
                            b.type(user[0], a.username)
                            b.type(pw[0], a.password)
                            b.click(ok[0])
                            acts["login"] = time.time()
                            submitted.add("login")
                            mark("login_submitted")
                            steps.append({"action": "typed username and password, clicked sign-in"})
                elif st["unchecked"] or st["grant"]:
                    if "grant" not in acts:
                        boxes = [e for e in b.find('input[type=checkbox][id^="grant-"]')]
                        for box in boxes:
                            if not _checked(b, box):
                                b.click(box)
                        btn = b.find_xpath("//div[contains(@class,'card-body')]//button[contains(., 'Grant')]")
                        if btn:
                            b.click(btn[0])
                            acts["grant"] = time.time()
                            mark("consent_granted")
                            steps.append({"action": f"ticked {st['unchecked']} consent box(es), clicked Grant access"})
                elif st["cont"] and "continue" not in acts:
                    btn = b.find('.card-footer button.btn-success, button[title="Continue to client application"]')
                    if btn:
                        b.click(btn[0])
                        acts["continue"] = time.time()
                        mark("continue_clicked")
                        steps.append({"action": "clicked Continue"})
            except Failure:
                raise
            except Exception as e:  # an element replaced by a re-render: look again on the next poll
                steps.append({"retry": type(e).__name__})
        time.sleep(POLL)


def _checked(b, el):
    if isinstance(b, Chromium):
        return el.is_selected()
    return b.m("WebDriver:IsElementSelected", {"id": el})


def main():
    p = argparse.ArgumentParser(description="Drive a real browser through a real login page.")
    p.add_argument("--browser", choices=("chromium", "firefox"), required=True)
    p.add_argument("--profile", required=True, help="browser profile / user data dir (kept: reuse it for the remembered flow)")
    p.add_argument("--url", required=True, help="the authorize URL (its redirect_uri says where the login ends)")
    p.add_argument("--username")
    p.add_argument("--password")
    p.add_argument("--screenshot", help="save a PNG of the final page")
    p.add_argument("--expect-no-form", action="store_true", help="fail if the password form ever appears")
    p.add_argument("--g-continue", action="store_true", help="append g_continue (Glewlwyd: no page at all)")
    p.add_argument("--wait-file", help="also wait until this file gains a line (the handler's record)")
    p.add_argument("--display", help="DISPLAY for the browser (default: $DISPLAY, else :99; no server needed)")
    p.add_argument("--allow-origin", help="origin allowed to launch the scheme (default: the URL's origin)")
    p.add_argument("--policy-root", help="no pre-seeded allowance: the browser reads its managed policies from "
                                         "DIR (its etc/chromium or usr/lib/firefox-esr/distribution bound over the real one in a mount namespace "
                                         "of its own; needs root), as linkctl browser-policy --root DIR wrote them")
    p.add_argument("--redirect-uri", help="override: the redirect URI to expect (default: from the URL)")
    p.add_argument("--log", help="browser stdout/stderr (default: PROFILE/../NAME-browser.log)")
    p.add_argument("--timeout", type=float, default=60.0)
    p.add_argument("--out", help="also append the result line to this file (when a daemon starts this as a browser)")
    a = p.parse_args()

    t0 = time.time()
    deadline = t0 + a.timeout
    # Orphans of the browser (Firefox's crashhelper double-forks) become our children, so
    # they are reaped here rather than left as zombies under a container's pid 1.
    ctypes.CDLL("libc.so.6").prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    url = a.url + (("&" if "?" in a.url else "?") + "g_continue" if a.g_continue else "")
    q = urllib.parse.parse_qs(urllib.parse.urlsplit(a.url).query)
    redirect_uri = a.redirect_uri or (q.get("redirect_uri") or [None])[0]
    if not redirect_uri:
        print("browser_login: the URL has no redirect_uri; give --redirect-uri", file=sys.stderr)
        return 2
    scheme = urllib.parse.urlsplit(redirect_uri).scheme.lower()
    loopback = scheme in ("http", "https")
    u = urllib.parse.urlsplit(a.url)
    origin = a.allow_origin or f"{u.scheme}://{u.netloc}"
    profile = os.path.abspath(a.profile)
    os.makedirs(profile, mode=0o700, exist_ok=True)
    display = a.display or os.environ.get("DISPLAY") or ":99"
    env = browser_env(display)
    log_path = a.log or profile.rstrip("/") + f".{a.browser}.log"
    log = open(log_path, "ab")
    result = {"ok": False, "browser": a.browser, "profile": profile, "redirect_uri": redirect_uri,
              "mode": "g_continue" if a.g_continue else ("remembered" if a.expect_no_form else "form"),
              "form_seen": False, "steps": [], "timings": {}, "display": display, "log": log_path}
    b = None
    code = 1
    wait_from = line_count(a.wait_file) if a.wait_file else 0
    try:
        cls = Chromium if a.browser == "chromium" else Firefox
        b = cls(profile, origin, None if loopback else scheme, env, deadline, log, policy_root=a.policy_root)
        result["browser_pid"] = b.pid
        t_nav = time.time()
        result["navigation_started_at"] = t_nav  # epoch seconds: timings are relative to it
        result["timings"]["launch"] = round(t_nav - t0, 3)
        b.navigate(url)
        redirect = drive(b, a, redirect_uri, loopback, t_nav, deadline, result)
        result["redirect"] = redirect
        rq = urllib.parse.parse_qs(urllib.parse.urlsplit(redirect).query)
        for k in ("code", "state", "iss", "error", "error_description"):
            if k in rq:
                result[k] = rq[k][0]
        if a.wait_file:
            def gained():
                return line_count(a.wait_file) > wait_from
            wait_for(gained, deadline, f"a new line in {a.wait_file}", b.proc)
            result["timings"]["handler_recorded"] = round(time.time() - t_nav, 3)
            try:
                with open(a.wait_file) as f:
                    last = json.loads(f.read().splitlines()[-1])
                if isinstance(last, dict) and isinstance(last.get("time"), (int, float)):
                    result["timings"]["handler_started"] = round(last["time"] - t_nav, 3)
            except (ValueError, IndexError, OSError):
                pass
        result["pss_mib"] = pss_mib(b.pid)
        if a.screenshot:
            b.screenshot(a.screenshot)
            result["screenshot"] = a.screenshot
        result["ok"] = "code" in result
        code = 0 if result["ok"] else 3
    except Failure as e:
        result["message"] = str(e)
        print(f"browser_login: {e}", file=sys.stderr)
    except Exception as e:
        result["message"] = f"{type(e).__name__}: {e}"
        print(f"browser_login: unexpected {type(e).__name__}: {e}", file=sys.stderr)
    finally:
        if b is not None:
            t_close = time.time()
            b.close(time.time() + 15)
            result["timings"]["close"] = round(time.time() - t_close, 3)
        result["timings"]["total"] = round(time.time() - t0, 3)
        result["orphans_left"] = reap_orphans(time.time() + 3)
        result.pop("last_state", None) if result["ok"] else None
        print(json.dumps(result), flush=True)
        if a.out:
            with open(a.out, "a") as f:
                f.write(json.dumps(result) + "\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
