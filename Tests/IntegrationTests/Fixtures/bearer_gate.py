"""What the stand-in servers of a forge and a cluster share: a token is good
when the provider's userinfo endpoint accepts it (asked on every request, no
cache: an expired token is refused at once), and each request's outcome is
one line in a log (`200 ` and the token's last 12 characters, or `401 reason`:
JWTs share their first characters, so the last ones tell tokens apart).
"""
import http.server, os, socketserver, urllib.error, urllib.request


class BearerGate:
    def __init__(self, userinfo_endpoint, log_path):
        self.userinfo = userinfo_endpoint
        self.log_path = log_path

    def valid(self, token):
        req = urllib.request.Request(self.userinfo, headers={"Authorization": "Bearer " + token})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status == 200
        except urllib.error.HTTPError:
            return False

    def admit(self, token):
        """Whether `token` (None: none was sent) may in; the outcome is logged."""
        ok = token is not None and self.valid(token)
        with open(self.log_path, "a") as f:
            f.write(("200 " + token[-12:]) if ok else ("401 " + ("no token" if token is None else "refused by userinfo")))
            f.write("\n")
        return ok


def serve(handler, port_file, wrap=None):
    """Serves `handler` on 127.0.0.1 and a free port, threaded; the port goes
    to `port_file` (written whole) once listening; `wrap` may wrap the socket (TLS)."""
    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True

    server = Server(("127.0.0.1", 0), handler)
    if wrap:
        server.socket = wrap(server.socket)
    with open(port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(port_file + ".tmp", port_file)
    server.serve_forever()
