#!/usr/bin/python3
"""A stand-in https "provider" for the Vipps app-to-app flow, for REAL browsers.

tls_provider.py --dir DIR [--port N] [--trust-home HOME ...]
                [--trust-firefox-profile DIR ...] [--until auto|stdin|signal]

Makes in DIR (0700): a test CA (ca.pem, ca.key) and a server certificate for
IP:127.0.0.1 and DNS:localhost signed by it (server.pem, server.key), with the
openssl CLI. Serves https://127.0.0.1:PORT (Python ssl, TLS 1.2+):

  GET /authorize?redirect_uri=…&state=…[&…]
        sets cookie leg1=<random> (Secure; HttpOnly; SameSite=Lax; Path=/) and
        shows "Open the Vipps app" with the resume link (a#resume). The login
        is remembered under a tabId; its resume_uri is
        https://127.0.0.1:PORT/resume?tabId=T.
  GET /resume?tabId=T
        with the matching leg1 cookie: 302 to redirect_uri?code=…&state=…;
        without it (another browser or profile): 403.
  anything else: 404.

Every request is appended to DIR/requests.jsonl as one JSON object: time,
method, path, query, leg1_cookie (present?), cookie_matches, status,
location, tab, user_agent. Authorize also records resume_uri.

Trust, without turning off any check:
  --trust-home HOME          adds the CA to HOME/.pki/nssdb (Chromium's NSS
                             store, created if missing) with certutil.
  --trust-firefox-profile P  adds it to the Firefox profile's cert9.db.
certutil is in Debian's libnss3-tools (not installed by default).

Prints one JSON line when listening: {"origin", "port", "authorize_endpoint",
"ca_cert", "requests_log", "pid", "trusted": [...]}; stops on
SIGTERM/SIGINT/SIGHUP or stdin EOF (if stdin is a pipe/socket/tty).
Errors: message on stderr, exit 1.
"""
import argparse, html, http.server, json, os, secrets, shutil, ssl, subprocess
import sys, threading, time, urllib.parse

from fixture_process import run_until_stopped, stop_on_signals

CA_NICK = "linkrouter test CA"


class Failure(Exception):
    pass


def run(argv):
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise Failure(f"{' '.join(argv[:2])} failed ({r.returncode}): {r.stderr.strip()}")
    return r.stdout


def make_certs(d):
    ca_key, ca, key, csr, cert = (os.path.join(d, n) for n in ("ca.key", "ca.pem", "server.key", "server.csr", "server.pem"))
    run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", ca_key, "-out", ca, "-days", "2",
         "-subj", f"/CN={CA_NICK} {secrets.token_hex(4)}",
         "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
    run(["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", csr, "-subj", "/CN=127.0.0.1"])
    ext = os.path.join(d, "server.ext")
    with open(ext, "w") as f:
        f.write("basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
                "extendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n")
    run(["openssl", "x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-out", cert,
         "-days", "2", "-extfile", ext])
    return ca, cert, key


def trust(nssdir, ca):
    if not shutil.which("certutil"):
        raise Failure("certutil not found: apt-get install -y libnss3-tools")
    os.makedirs(nssdir, mode=0o700, exist_ok=True)
    db = "sql:" + nssdir
    if not os.path.exists(os.path.join(nssdir, "cert9.db")):
        run(["certutil", "-N", "-d", db, "--empty-password"])
    run(["certutil", "-A", "-d", db, "-n", CA_NICK, "-t", "C,,", "-i", ca])
    return nssdir


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--dir", required=True)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--trust-home", action="append", default=[])
    p.add_argument("--trust-firefox-profile", action="append", default=[])
    p.add_argument("--until", choices=("auto", "stdin", "signal"), default="auto")
    a = p.parse_args()
    stop = stop_on_signals()
    try:
        d = os.path.abspath(a.dir)
        if os.path.exists(d) and os.listdir(d):
            raise Failure(f"--dir {d} is not empty: give a fresh directory")
        os.makedirs(d, mode=0o700, exist_ok=True)
        ca, cert, key = make_certs(d)
        trusted = [trust(os.path.join(h, ".pki", "nssdb"), ca) for h in a.trust_home]
        trusted += [trust(os.path.abspath(pr), ca) for pr in a.trust_firefox_profile]
        log_path = os.path.join(d, "requests.jsonl")
        logins = {}  # tab -> login
        lock = threading.Lock()

        def log(**kw):
            with lock, open(log_path, "a") as f:
                f.write(json.dumps(dict(time=time.time(), **kw)) + "\n")

        class Handler(http.server.BaseHTTPRequestHandler):
            timeout = 10

            def log_message(self, *args):
                pass

            def send(self, status, body=b"", headers=()):
                self.send_response(status)
                for k, v in headers:
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                u = urllib.parse.urlsplit(self.path)
                q = {k: v[0] for k, v in urllib.parse.parse_qs(u.query, keep_blank_values=True).items()}
                leg1 = None
                for part in (self.headers.get("Cookie") or "").split(";"):
                    k, _, v = part.strip().partition("=")
                    if k == "leg1":
                        leg1 = v
                entry = dict(method="GET", path=u.path, query=q, leg1_cookie=leg1 is not None,
                             user_agent=self.headers.get("User-Agent"))
                if u.path == "/authorize":
                    tab, cookie = secrets.token_hex(8), secrets.token_urlsafe(16)
                    resume = f"https://127.0.0.1:{port}/resume?tabId={tab}"
                    with lock:
                        logins[tab] = {"cookie": cookie, "redirect_uri": q.get("redirect_uri"), "state": q.get("state")}
                    body = (f"<!doctype html><html><head><meta charset='utf-8'><title>Log in with Vipps</title></head>"
                            f"<body><h1>Open the Vipps app to continue</h1><p>Waiting for the app…</p>"
                            f"<p><a id='resume' href='{html.escape(resume)}'>resume</a></p></body></html>").encode()
                    self.send(200, body, [("Content-Type", "text/html; charset=utf-8"),
                                          ("Set-Cookie", f"leg1={cookie}; Path=/; Secure; HttpOnly; SameSite=Lax")])
                    log(**entry, status=200, tab=tab, resume_uri=resume, set_cookie=True)
                elif u.path == "/resume":
                    tab = q.get("tabId")
                    with lock:
                        login = logins.get(tab)
                    matches = bool(login and leg1 == login["cookie"])
                    if not matches or not login.get("redirect_uri"):
                        self.send(403, b"<p>No login in this browser.</p>", [("Content-Type", "text/html")])
                        log(**entry, status=403, tab=tab, cookie_matches=matches)
                        return
                    target = login["redirect_uri"] + ("&" if "?" in login["redirect_uri"] else "?") + urllib.parse.urlencode(
                        {"code": "code-" + secrets.token_hex(8), "state": login["state"] or ""})
                    self.send(302, b"", [("Location", target)])
                    log(**entry, status=302, tab=tab, cookie_matches=True, location=target)
                else:
                    self.send(404, b"not found")
                    log(**entry, status=404)

        server = http.server.ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
        server.daemon_threads = True
        port = server.server_address[1]
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        ctx.load_cert_chain(cert, key)
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()
        origin = f"https://127.0.0.1:{port}"
        print(json.dumps({"origin": origin, "port": port, "authorize_endpoint": origin + "/authorize",
                          "resume_endpoint": origin + "/resume", "ca_cert": ca, "server_cert": cert,
                          "requests_log": log_path, "pid": os.getpid(), "trusted": trusted}), flush=True)
        run_until_stopped(stop, a.until)
        server.shutdown()
        return 0
    except Failure as e:
        print(f"tls_provider: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
