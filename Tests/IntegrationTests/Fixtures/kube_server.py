#!/usr/bin/python3
"""A stand-in Kubernetes API endpoint for one test: TLS (kubectl runs an exec
plugin only for https), every request checked for `Authorization: Bearer
<token>` valid at the provider's userinfo endpoint, as an API server with a
token webhook would.

kube_server.py --provider INFO.json --dir DIR --port-file FILE

Makes a self-signed certificate in DIR (openssl CLI), listens on 127.0.0.1, a
free port written to FILE. `GET /api` with a valid token answers an
APIVersions object; anything else 401 with a Status. Each request's outcome is
appended to DIR/requests.log (`200 ` and the token's last 12 characters, or
`401 reason`). Stops on SIGTERM.
"""
import argparse, http.server, json, os, ssl, subprocess, sys

from bearer_gate import BearerGate, serve


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--provider", required=True)
    p.add_argument("--dir", required=True)
    p.add_argument("--port-file", required=True)
    a = p.parse_args()
    info = json.loads(open(a.provider).readline())
    os.makedirs(a.dir, exist_ok=True)
    key, cert = os.path.join(a.dir, "key.pem"), os.path.join(a.dir, "cert.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    gate = BearerGate(info["userinfo_endpoint"], os.path.join(a.dir, "requests.log"))

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def answer(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            h = self.headers.get("Authorization", "")
            if not gate.admit(h[7:] if h.startswith("Bearer ") else None):
                self.answer(401, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": "Unauthorized", "reason": "Unauthorized", "code": 401})
            elif self.path.split("?")[0] == "/api":
                self.answer(200, {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []})
            else:
                self.answer(404, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404})

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    serve(Handler, a.port_file, wrap=lambda sock: context.wrap_socket(sock, server_side=True))


if __name__ == "__main__":
    sys.exit(main())
