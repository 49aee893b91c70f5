#!/usr/bin/python3
"""A desktop entry that starts a REAL browser (headless by default) with a fixed profile.

make_browser_entry.py --browser chromium|firefox --profile DIR --applications DIR
                      --id ID.desktop [--bin DIR] [--scheme S --allow-origin O ...]
                      [--default] [--headed] [--record FILE]
make_browser_entry.py --stop (--record FILE | --profile DIR) [--timeout S]

For tests where the daemon (not WebDriver) opens a URL in "the browser", and
for the app-to-app case where a later URL (resume_uri) must open in the SAME
running browser, so that its cookies are there.

Writes BIN/NAME-launch (BIN defaults to the applications dir's parent + /bin;
no white space allowed: xdg-open splits Exec= on spaces), a wrapper that
appends {"time", "pid", "argv"[, "forwarded"]} to FILE (default
PROFILE.invocations.jsonl) and execs
  chromium: /usr/lib/chromium/chromium --headless=new --remote-debugging-port=0
            [--no-sandbox as root] --user-data-dir=PROFILE --no-first-run
            --no-default-browser-check --password-store=basic --disable-gpu URL
  firefox:  firefox-esr --headless --marionette -remote-allow-system-access
            --profile PROFILE URL
(--headed: without the headless/remote flags; needs a live X server in DISPLAY,
e.g. xvfb_display.py), and APPLICATIONS/ID with Exec=WRAPPER %u for http,
https and text/html.

A second start while the browser runs: headed, the browser forwards it itself
(Chromium always; Firefox only with a session D-Bus). Headless, neither does
(Chromium exits 21 "Failed to create a ProcessSingleton"; Firefox says "already
running, but is not responding" and exits 0 after ~5 s), so the wrapper
forwards the URL to the running instance: Chromium through DevTools
(PUT /json/new?URL), Firefox through Marionette (a new tab, as if typed).

--scheme/--allow-origin (repeatable) let the profile launch SCHEME's handler
from a 302 sent by ORIGIN with no prompt (Chromium: Preferences'
protocol_handler.allowed_origin_protocol_pairs; Firefox: user.js
network.protocol-handler.external.SCHEME). --default: `xdg-mime default` for
http/https/text/html in the current XDG_CONFIG_HOME.

Note: xdg-open runs Exec= in the foreground, so `xdg-open URL` that starts the
browser returns only when the browser exits (a forwarded start returns at once).

Prints {"desktop_entry", "wrapper", "record", "profile", "forwarding", "exec"}.
--stop: SIGTERM (SIGKILL after --timeout) every recorded pid that is still
this browser (both save cookies on SIGTERM); prints {"stopped": [pids]}.
"""

# Headless Firefox does not forward a second start either (it prints "Firefox is
# already running, but is not responding" and exits 0 after ~5 s; headed, it
# forwards only over a session D-Bus). For headless entries the browser runs with
# Marionette, and the wrapper opens the URL in a new tab of the running instance
# through it, as if typed into the address bar.
FORWARD_FIREFOX = r"""
import socket
def running_marionette_port():
    try:
        pid = int(os.readlink(os.path.join(PROFILE, 'lock')).rsplit('+', 1)[1])  # "IP:+PID"
        os.kill(pid, 0)
        with open(os.path.join(PROFILE, 'MarionetteActivePort')) as f:
            return int(f.read().strip())
    except (OSError, ValueError, IndexError):
        return None
def marionette(port, commands):
    s = socket.create_connection(('127.0.0.1', port), timeout=30)
    buf = b''
    def recv():
        nonlocal buf
        while b':' not in buf:
            buf += s.recv(65536)
        n, _, rest = buf.partition(b':')
        while len(rest) < int(n):
            rest += s.recv(65536)
        buf = rest[int(n):]
        return json.loads(rest[:int(n)])
    recv()
    for i, (name, params) in enumerate(commands, 1):
        data = json.dumps([0, i, name, params]).encode()
        s.sendall(str(len(data)).encode() + b':' + data)
        while True:
            r = recv()
            if r[1] == i:
                break
        if r[2]:
            raise SystemExit('marionette %s: %s' % (name, r[2]))
    s.close()
port = running_marionette_port()
if port and len(sys.argv) > 1:
    marionette(port, [('WebDriver:NewSession', {'capabilities': {'alwaysMatch': {'pageLoadStrategy': 'none'}}}),
                      ('Marionette:SetContext', {'value': 'chrome'}),
                      ('WebDriver:ExecuteScript', {'script': "openTrustedLinkIn(arguments[0], 'tab'); return true;",
                                                   'args': [sys.argv[-1]]}),
                      ('WebDriver:DeleteSession', {})])
    note(forwarded='marionette')
    sys.exit(0)
"""
import argparse, json, os, shlex, signal, subprocess, sys, time

CHROMIUM = "/usr/lib/chromium/chromium"
FIREFOX = "/usr/lib/firefox-esr/firefox-esr"

# Headless Chromium has no working process singleton: a second start on a profile
# in use exits 21 ("Failed to create a ProcessSingleton ... Aborting"). A headed
# one forwards the URL to the running instance. For headless entries the wrapper
# does that forwarding itself, through the running instance's DevTools endpoint
# (PUT /json/new?URL opens a new tab in it, with its cookies).
FORWARD = r"""
def running_devtools_port():
    try:
        target = os.readlink(os.path.join(PROFILE, 'SingletonLock'))  # "hostname-PID"
        pid = int(target.rsplit('-', 1)[1])
        # Chromium rewrites its process title: the arguments end up joined by spaces, not NULs.
        with open('/proc/%d/cmdline' % pid, 'rb') as f:
            if ('--user-data-dir=' + PROFILE).encode() not in f.read().replace(b'\0', b' ').split(b' '):
                return None
        with open(os.path.join(PROFILE, 'DevToolsActivePort')) as f:
            return int(f.readline())
    except (OSError, ValueError, IndexError):
        return None
port = running_devtools_port()
if port and len(sys.argv) > 1:
    req = urllib.request.Request('http://127.0.0.1:%d/json/new?%s' % (port, sys.argv[-1]), method='PUT')
    with urllib.request.urlopen(req, timeout=10) as r:
        tab = json.loads(r.read())
    note(forwarded='devtools', tab=tab.get('id'))
    sys.exit(0)
"""


def chromium_allow(profile, pairs):
    path = os.path.join(profile, "Default", "Preferences")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    try:
        with open(path) as f:
            prefs = json.load(f)
    except (FileNotFoundError, ValueError):
        prefs = {}
    allowed = prefs.setdefault("protocol_handler", {}).setdefault("allowed_origin_protocol_pairs", {})
    for origin, scheme in pairs:
        allowed.setdefault(origin, {})[scheme] = True
    with open(path + ".tmp", "w") as f:
        json.dump(prefs, f)
    os.replace(path + ".tmp", path)


def firefox_prefs(profile, schemes, marionette):
    prefs = {"browser.shell.checkDefaultBrowser": False, "browser.startup.homepage_override.mstone": "ignore",
             "browser.aboutwelcome.enabled": False, "datareporting.policy.dataSubmissionEnabled": False,
             "toolkit.telemetry.reportingpolicy.firstRun": False, "app.update.disabledForTesting": True,
             "services.settings.server": "data:,#remote-settings-disabled",
             "network.captive-portal-service.enabled": False, "browser.safebrowsing.update.enabled": False}
    for s in schemes:
        prefs[f"network.protocol-handler.external.{s}"] = True
    if marionette:
        prefs["marionette.port"] = 0  # Firefox picks one and writes PROFILE/MarionetteActivePort
    with open(os.path.join(profile, "user.js"), "a") as f:
        for k, v in prefs.items():
            f.write(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n")


def stop(record, timeout):
    pids = []
    try:
        with open(record) as f:
            pids = [json.loads(l)["pid"] for l in f if l.strip()]
    except FileNotFoundError:
        pass
    live = []
    for pid in set(pids):
        try:  # the executable, not argv[0]: Chromium rewrites its process title
            exe = os.readlink(f"/proc/{pid}/exe")
        except OSError:
            continue
        if exe in (CHROMIUM, FIREFOX) or exe.endswith(("/chromium", "/firefox-esr")):
            os.kill(pid, signal.SIGTERM)  # both save cookies on SIGTERM
            live.append(pid)
    deadline = time.time() + timeout
    for pid in live:
        while os.path.exists(f"/proc/{pid}") and time.time() < deadline:
            try:
                if os.waitpid(pid, os.WNOHANG)[0]:  # our child only if we started it
                    break
            except ChildProcessError:
                pass
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    break
            time.sleep(0.05)
        if os.path.exists(f"/proc/{pid}") and time.time() >= deadline:
            os.kill(pid, signal.SIGKILL)
    print(json.dumps({"stopped": live}))
    return 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--browser", choices=("chromium", "firefox"))
    p.add_argument("--profile")
    p.add_argument("--applications")
    p.add_argument("--id")
    p.add_argument("--bin")
    p.add_argument("--scheme", action="append", default=[])
    p.add_argument("--allow-origin", action="append", default=[])
    p.add_argument("--default", action="store_true")
    p.add_argument("--headed", action="store_true",
                   help="no --headless: needs a live X server in DISPLAY (Xvfb); second starts are forwarded "
                        "by the browser itself (Firefox: only with a session D-Bus)")
    p.add_argument("--record")
    p.add_argument("--stop", action="store_true")
    p.add_argument("--timeout", type=float, default=10.0)
    a = p.parse_args()
    if a.stop:
        if not a.record and not a.profile:
            p.error("--stop needs --record or --profile")
        return stop(a.record or os.path.abspath(a.profile).rstrip("/") + ".invocations.jsonl", a.timeout)
    for k in ("browser", "profile", "applications", "id"):
        if getattr(a, k) is None:
            p.error(f"--{k} is required")
    profile = os.path.abspath(a.profile)
    apps = os.path.abspath(a.applications)
    bindir = os.path.abspath(a.bin or os.path.join(os.path.dirname(apps), "bin"))
    record = os.path.abspath(a.record or profile.rstrip("/") + ".invocations.jsonl")
    name = a.id[:-8] if a.id.endswith(".desktop") else a.id
    wrapper = os.path.join(bindir, name + "-launch")
    for path in (wrapper, profile):
        if any(c.isspace() for c in path):
            print(f"make_browser_entry: {path!r} has white space; xdg-open would split it", file=sys.stderr)
            return 1
    os.makedirs(profile, mode=0o700, exist_ok=True)
    os.makedirs(apps, exist_ok=True)
    os.makedirs(bindir, exist_ok=True)
    if a.browser == "chromium":
        argv = [CHROMIUM] + ([] if a.headed else ["--headless=new", "--remote-debugging-port=0"]) + (
            ["--no-sandbox"] if os.geteuid() == 0 else []) + [
            "--user-data-dir=" + profile, "--no-first-run", "--no-default-browser-check", "--password-store=basic",
            "--disable-gpu"]
        pairs = [(o, s) for o in a.allow_origin for s in a.scheme]
        if pairs:
            chromium_allow(profile, pairs)
    else:
        argv = [FIREFOX] + ([] if a.headed else ["--headless", "--marionette", "-remote-allow-system-access"]) + [
            "--profile", profile]
        firefox_prefs(profile, a.scheme, marionette=not a.headed)
    forward = not a.headed
    with open(wrapper, "w") as f:
        f.write("#!/usr/bin/python3\n# Written by make_browser_entry.py: records the invocation, then execs the browser.\n"
                "import json, os, sys, time, urllib.parse, urllib.request\n"
                f"PROFILE = {profile!r}\n"
                f"RECORD = {record!r}\n"
                "def note(**kw):\n"
                "    with open(RECORD, 'a') as f:\n"
                "        f.write(json.dumps(dict(time=time.time(), pid=os.getpid(), argv=sys.argv[1:], **kw)) + '\\n')\n"
                + ((FORWARD if a.browser == "chromium" else FORWARD_FIREFOX) if forward else "")
                + "note()\n"
                "env = dict(os.environ)\n"
                "for k in ('XDG_CURRENT_DESKTOP', 'DESKTOP_SESSION', 'WAYLAND_DISPLAY'):\n"
                "    env.pop(k, None)\n"
                "env.setdefault('BROWSER', 'false')\n"
                + ("env.setdefault('MOZ_HEADLESS', '1')\n" if a.browser == "firefox" and not a.headed else "")
                + f"os.execve({argv[0]!r}, {argv!r} + sys.argv[1:], env)\n")
    os.chmod(wrapper, 0o755)
    entry = os.path.join(apps, a.id)
    with open(entry, "w") as f:
        f.write(f"[Desktop Entry]\nType=Application\nName=Headless {a.browser} ({name})\nExec={wrapper} %u\n"
                "MimeType=x-scheme-handler/http;x-scheme-handler/https;text/html;\nNoDisplay=true\n")
    if a.default:
        for t in ("x-scheme-handler/http", "x-scheme-handler/https", "text/html"):
            subprocess.run(["xdg-mime", "default", a.id, t], check=True)
    print(json.dumps({"desktop_entry": entry, "wrapper": wrapper, "record": record, "profile": profile,
                      "forwarding": ("devtools" if a.browser == "chromium" else "marionette") + " (wrapper)" if forward else ("browser" if a.headed else "none"),
                      "exec": " ".join(shlex.quote(x) for x in argv) + " URL"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
