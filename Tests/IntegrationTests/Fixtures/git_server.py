#!/usr/bin/python3
"""A git server for one test: Debian's `git http-backend` behind a small HTTP
server that lets a request in only with a valid access token of the
provider's, as a forge would.

git_server.py --provider INFO.json --root DIR --port-file FILE

Serves the repositories under DIR (smart HTTP, GIT_HTTP_EXPORT_ALL) on
127.0.0.1, a free port written to FILE once listening. A request needs
`Authorization: Basic <user:token>` (git 2.39) or `Bearer <token>` (newer git);
the token is checked at the provider's userinfo endpoint on every request (no
cache: an expired token is refused at once). Without a valid one: 401 with
`WWW-Authenticate: Basic realm="git"`. Each request's outcome is appended to
DIR/../git-requests.log (`200 ` and the token's last 12 characters, or `401 reason`). Stops on SIGTERM.
"""
import argparse, base64, http.server, json, os, subprocess, sys

from bearer_gate import BearerGate, serve


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--provider", required=True)
    p.add_argument("--root", required=True)
    p.add_argument("--port-file", required=True)
    a = p.parse_args()
    info = json.loads(open(a.provider).readline())
    gate = BearerGate(info["userinfo_endpoint"], os.path.join(os.path.dirname(os.path.abspath(a.root)), "git-requests.log"))

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def token(self):
            h = self.headers.get("Authorization", "")
            if h.startswith("Bearer "):
                return h[7:]
            if h.startswith("Basic "):
                try:
                    user, _, password = base64.b64decode(h[6:]).decode().partition(":")
                    return password
                except Exception:
                    return None
            return None

        def handle_any(self):
            length = int(self.headers.get("Content-Length", "0") or 0)
            body = self.rfile.read(length) if length else b""
            if not gate.admit(self.token()):
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="git"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            path, _, query = self.path.partition("?")
            env = dict(os.environ, GIT_PROJECT_ROOT=os.path.abspath(a.root), GIT_HTTP_EXPORT_ALL="1", PATH_INFO=path,
                       QUERY_STRING=query, REQUEST_METHOD=self.command, CONTENT_TYPE=self.headers.get("Content-Type", ""),
                       CONTENT_LENGTH=str(len(body)), REMOTE_USER="user", REMOTE_ADDR="127.0.0.1")
            out = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True).stdout
            sep = b"\r\n\r\n" if b"\r\n\r\n" in out else b"\n\n"
            head, _, payload = out.partition(sep)
            status = 200
            headers = []
            for line in head.decode(errors="replace").replace("\r\n", "\n").split("\n"):
                k, _, v = line.partition(":")
                if k.lower() == "status":
                    status = int(v.strip().split()[0])
                elif k:
                    headers.append((k, v.strip()))
            self.send_response(status)
            for k, v in headers:
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = handle_any
        do_POST = handle_any

    serve(Handler, a.port_file)


if __name__ == "__main__":
    sys.exit(main())
