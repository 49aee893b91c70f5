#!/usr/bin/env python3
"""A stand-in OAuth provider that behaves like the Vipps MobilePay login.

GET /authorize  sets a cookie in the browser that opened it (the login lives
                in that browser) and records the login: state, redirect_uri,
                and the resume_uri the "Vipps app" will hand back.
GET /vipps-login-idp/resume?tabId=T
                completes only with that cookie: 302 to redirect_uri?state=…&code=…
                Without it: 403 (another browser has no login).
GET /redirect-to?url=U
                302 to U (a provider's redirect, e.g. to a loopback listener).

It listens on 127.0.0.1 with TLS (cert and key given), prints its port on
stdout, and appends one JSON line per event to the --events file.
"""
import argparse, http.server, json, secrets, ssl, sys, urllib.parse

logins = {}   # cookie -> login
events_path = None


def event(**kw):
    with open(events_path, "a") as f:
        f.write(json.dumps(kw) + "\n")


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def send(self, code, body=b"", headers=()):
        self.send_response(code)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        q = urllib.parse.parse_qs(url.query)
        one = lambda k: q.get(k, [None])[0]
        cookie = None
        for part in (self.headers.get("Cookie") or "").split(";"):
            k, _, v = part.strip().partition("=")
            if k == "login":
                cookie = v
        if url.path == "/authorize":
            c = secrets.token_urlsafe(16)
            tab = secrets.token_hex(8)
            port = self.server.server_address[1]
            login = {"state": one("state"), "redirect_uri": one("redirect_uri"),
                     "app_callback_uri": one("app_callback_uri"), "tab": tab,
                     "resume_uri": f"https://127.0.0.1:{port}/vipps-login-idp/resume?tabId={tab}",
                     "code": "code-" + secrets.token_hex(6)}
            logins[c] = login
            event(kind="authorize", **login, user_agent=self.headers.get("User-Agent"))
            self.send(200, b"<p>Open the Vipps app to continue.</p>", [("Set-Cookie", f"login={c}; Path=/; Secure; HttpOnly")])
        elif url.path == "/vipps-login-idp/resume":
            login = logins.get(cookie)
            if not login or login["tab"] != one("tabId"):
                event(kind="resume-refused", tab=one("tabId"), had_cookie=cookie is not None, user_agent=self.headers.get("User-Agent"))
                self.send(403, b"no login in this browser")
                return
            target = login["redirect_uri"] + ("&" if "?" in login["redirect_uri"] else "?") + urllib.parse.urlencode({"state": login["state"], "code": login["code"]})
            event(kind="resume", tab=login["tab"], location=target, user_agent=self.headers.get("User-Agent"))
            self.send(302, b"", [("Location", target)])
        elif url.path == "/redirect-to":
            event(kind="redirect", location=one("url"))
            self.send(302, b"", [("Location", one("url"))])
        else:
            self.send(404, b"not found")


def main():
    global events_path
    p = argparse.ArgumentParser()
    p.add_argument("--cert", required=True)
    p.add_argument("--key", required=True)
    p.add_argument("--events", required=True)
    a = p.parse_args()
    events_path = a.events
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(a.cert, a.key)
    server.socket = ctx.wrap_socket(server.socket, server_side=True)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
