#!/usr/bin/env python3
"""The server HTTPClientTests talk to: https and plain http on 127.0.0.1.

The test binds both listening sockets itself and passes them as inherited
descriptors (--https-fd, --http-fd), so connections queue in the kernel before
this process has started: the test never waits for it to be ready.

  GET  /hello       200, a small JSON body, Cache-Control/Age/Date, the
                    request's User-Agent, Accept and Cookie echoed as X-Got-*,
                    and the client's port (X-Client-Port: one per connection)
  POST /echo        200, the request body byte for byte; Content-Type, Expect
                    and the method echoed as X-Got-*
  GET  /status/N    status N with a short body
  GET  /redirect    302 to /hello
  GET  /big/N       N bytes with a Content-Length
  GET  /stream/N    N bytes, chunked, no Content-Length
  GET  /stall       never answers; returns when the client goes away
"""
import argparse, http.server, socket, ssl, threading


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send(self, code, body=b"", headers=()):
        self.send_response(code)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def got(self, name):
        return self.headers.get(name, "")

    def do_GET(self):
        parts = self.path.split("/")
        if self.path == "/hello":
            self.send(200, b'{"hello":"world"}', [
                ("Content-Type", "application/json; charset=utf-8"),
                ("Cache-Control", "public, max-age=300"),
                ("Age", "20"),
                ("X-Got-User-Agent", self.got("User-Agent")),
                ("X-Got-Accept", self.got("Accept")),
                ("X-Got-Cookie", self.got("Cookie")),
                ("X-Client-Port", str(self.client_address[1])),
            ])
        elif len(parts) == 3 and parts[1] == "status":
            self.send(int(parts[2]), b"status " + parts[2].encode(), [("Content-Type", "text/plain")])
        elif self.path == "/redirect":
            self.send(302, b"moved", [("Location", "/hello")])
        elif len(parts) == 3 and parts[1] == "big":
            self.send(200, b"x" * int(parts[2]))
        elif len(parts) == 3 and parts[1] == "stream":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            left = int(parts[2])
            try:
                while left > 0:
                    n = min(left, 1000)
                    self.wfile.write(b"%x\r\n" % n + b"y" * n + b"\r\n")
                    left -= n
                self.wfile.write(b"0\r\n\r\n")
            except OSError:
                pass  # the client stopped reading, as it should past its limit
        elif self.path == "/stall":
            try:
                self.rfile.read(1)
            except OSError:
                pass
            self.close_connection = True
        else:
            self.send(404, b"not found")

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path == "/echo":
            self.send(200, body, [
                ("Content-Type", "application/octet-stream"),
                ("X-Got-Method", self.command),
                ("X-Got-Content-Type", self.got("Content-Type")),
                ("X-Got-Expect", self.got("Expect")),
            ])
        else:
            self.send(404, b"not found")


def serve(fd, context):
    sock = socket.socket(fileno=fd)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler, bind_and_activate=False)
    server.handle_error = lambda request, address: None  # refused handshakes are what some tests are for
    # The handshake runs in each connection's thread, so a client that fails it blocks no other.
    server.socket = context.wrap_socket(sock, server_side=True, do_handshake_on_connect=False) if context else sock
    server.serve_forever()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--https-fd", type=int, required=True)
    p.add_argument("--http-fd", type=int, required=True)
    p.add_argument("--cert", required=True)
    p.add_argument("--key", required=True)
    a = p.parse_args()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(a.cert, a.key)
    threading.Thread(target=serve, args=(a.http_fd, None), daemon=True).start()
    serve(a.https_fd, context)


if __name__ == "__main__":
    main()
