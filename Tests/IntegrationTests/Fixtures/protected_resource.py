#!/usr/bin/python3
"""A stand-in protected resource for one test (an API, or an MCP server's
endpoint, at /mcp): it publishes its metadata (RFC 9728) naming the
provider as where to sign in, and takes a request with a Bearer token the
provider's userinfo endpoint accepts (bearer_gate.py); anything else is 401
with a challenge naming the metadata (RFC 9728 §5.1, RFC 6750 §3).

protected_resource.py --provider INFO.json --dir DIR --port-file FILE [--tls]

Listens on 127.0.0.1 and a free port, written to FILE. The resource is
http://127.0.0.1:PORT/mcp (https with --tls: a self-signed certificate for
127.0.0.1 made in DIR/cert.pem, which the test makes its client trust); its metadata is at
/.well-known/oauth-protected-resource/mcp. What the metadata says is read from
DIR/mode at each request (absent or "honest": as it should be):

  honest           {"resource": ".../mcp", "authorization_servers": [ISSUER], "scopes_supported": [...]}
  other-resource   "resource" names another resource (a mix-up the client must refuse)
  malformed        the document is not JSON
  no-servers       no authorization_servers
  missing          404
  openid-only      as honest, with "scopes_supported": ["openid"] (a resource that needs less than the account holds)
  elsewhere        404 at the well-known place; the honest document at /meta/mcp instead, which the
                   401 to a request without a token names (resource_metadata, RFC 9728 §5.1)

How the resource answers a request that carries a token is read from
DIR/challenge (absent or "none": by the provider's userinfo, bearer_gate.py):

  invalid-token-once    the first such request: 401 error="invalid_token"; later ones as "none"
  invalid-token-always  every one: 401 error="invalid_token" (a server that never takes a token)
  insufficient-scope    every one: 403 error="insufficient_scope", scope="openid email"
  step-up               every one: 401 error="insufficient_user_authentication",
                        acr_values="urn:example:mfa", max_age=0 (RFC 9470)
  step-up-first         the first token it is sent, each time: 401 as step-up, without max_age (a token of
                        a sign-in it does not take); any other token as "none"

Each request is one line in DIR/requests.log: the metadata's
`metadata MODE`, or the resource's `200 TAIL` / `401 reason` (bearer_gate.py).
Stops on SIGTERM.
"""
import argparse, http.server, json, os, ssl, subprocess

from bearer_gate import BearerGate, serve


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--provider", required=True)
    p.add_argument("--dir", required=True)
    p.add_argument("--port-file", required=True)
    p.add_argument("--tls", action="store_true")
    a = p.parse_args()
    info = json.loads(open(a.provider).readline())
    os.makedirs(a.dir, exist_ok=True)
    log = os.path.join(a.dir, "requests.log")
    gate = BearerGate(info["userinfo_endpoint"], log)

    seen = {"tokens": 0, "first": None}

    def challenge_mode():
        try:
            return open(os.path.join(a.dir, "challenge")).read().strip() or "none"
        except FileNotFoundError:
            return "none"

    def mode():
        try:
            return open(os.path.join(a.dir, "mode")).read().strip() or "honest"
        except FileNotFoundError:
            return "honest"

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def origin(self):
            return "%s://127.0.0.1:%d" % ("https" if a.tls else "http", self.server.server_address[1])

        def answer(self, status, body, headers=()):
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            for k, v in headers:
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def metadata(self, elsewhere=False):
            m = mode()
            with open(log, "a") as f:
                f.write("metadata " + m + (" /meta/mcp" if elsewhere else "") + "\n")
            if m == "elsewhere" and not elsewhere:
                return self.answer(404, {"error": "not_found"})
            resource = self.origin() + "/mcp"
            doc = {"resource": resource, "authorization_servers": [info["issuer"]],
                   "scopes_supported": ["openid", "email"], "bearer_methods_supported": ["header"]}
            if m == "openid-only":
                doc["scopes_supported"] = ["openid"]
            elif m == "other-resource":
                doc["resource"] = self.origin() + "/elsewhere"
            elif m == "no-servers":
                del doc["authorization_servers"]
            elif m == "malformed":
                return self.answer(200, b"{not json")
            elif m == "missing":
                return self.answer(404, {"error": "not_found"})
            self.answer(200, doc)

        def resource(self):
            h = self.headers.get("Authorization", "")
            c = challenge_mode()
            if h.startswith("Bearer ") and c != "none":
                seen["tokens"] += 1
                if seen["first"] is None:
                    seen["first"] = h[7:]
                params = {
                    "invalid-token-always": (401, 'error="invalid_token"'),
                    "invalid-token-once": (401, 'error="invalid_token"') if seen["tokens"] == 1 else None,
                    "insufficient-scope": (403, 'error="insufficient_scope", scope="openid email"'),
                    "step-up": (401, 'error="insufficient_user_authentication", acr_values="urn:example:mfa", max_age=0'),
                    "step-up-first": (401, 'error="insufficient_user_authentication", acr_values="urn:example:mfa"')
                    if seen["first"] == h[7:] else None,
                }.get(c)
                if params:
                    with open(log, "a") as f:
                        f.write("%d %s\n" % (params[0], c))
                    return self.answer(params[0], {"error": c}, [("WWW-Authenticate", "Bearer " + params[1])])
            if gate.admit(h[7:] if h.startswith("Bearer ") else None):
                return self.answer(200, {"ok": True, "path": self.path})
            where = "/meta/mcp" if mode() == "elsewhere" else "/.well-known/oauth-protected-resource/mcp"
            challenge = 'Bearer resource_metadata="%s%s"' % (self.origin(), where)
            self.answer(401, {"error": "invalid_token"}, [("WWW-Authenticate", challenge)])

        def do_GET(self):
            path = self.path.split("?")[0]
            if path == "/.well-known/oauth-protected-resource/mcp":
                self.metadata()
            elif path == "/meta/mcp" and mode() == "elsewhere":
                self.metadata(elsewhere=True)
            elif path == "/mcp":
                self.resource()
            else:
                self.answer(404, {"error": "not_found"})

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0") or 0)
            self.rfile.read(length)
            if self.path.split("?")[0] == "/mcp":
                self.resource()
            else:
                self.answer(404, {"error": "not_found"})

    wrap = None
    if a.tls:
        key, cert = os.path.join(a.dir, "key.pem"), os.path.join(a.dir, "cert.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                        "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                       check=True, capture_output=True)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        wrap = lambda sock: context.wrap_socket(sock, server_side=True)
    serve(Handler, a.port_file, wrap=wrap)


if __name__ == "__main__":
    main()
