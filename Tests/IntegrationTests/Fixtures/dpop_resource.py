"""A resource server that takes DPoP-bound tokens only (RFC 9449 §7), for the tests.

python dpop_resource.py --info FILE [--require-nonce] [--jwks URL]   (python: one with jwcrypto, the DOT venv's)

Glewlwyd's /userinfo does not check a bound token's key (bug 1 in the reference
notes), so the tests need a resource of their own that does. Every request must
carry `Authorization: DPoP TOKEN` and a `DPoP` proof, and is admitted only when:

  * the proof is a JWS with `typ` dpop+jwt, `alg` ES256 and a public `jwk`, and
    its signature verifies with that key (jwcrypto, another implementation);
  * `htm` is the request's method, `htu` this server's URL of the path (no query);
  * `iat` is within 60 s of now, and `jti` was never seen before (a replay is refused);
  * `ath` is the base64url SHA-256 of the token (§4.2);
  * the token (a JWT; with --jwks, its signature verified with the provider's keys)
    has `cnf.jkt` equal to the proof key's RFC 7638 thumbprint (§6.1);
  * with --require-nonce, the proof's `nonce` is the one this server last gave: a
    proof without it is answered 401 `WWW-Authenticate: DPoP error="use_dpop_nonce"`
    with a `DPoP-Nonce` header (§9).

200 answers JSON {"sub", "jkt"}; 401 answers JSON {"error", "reason"}. Each outcome
is one line in FILE.log ("200 JKT" or "401 reason"). Writes {"origin", "pid",
"log"} to FILE once listening; stops on SIGTERM.
"""
import argparse, base64, hashlib, http.server, json, os, secrets, signal, socketserver, sys, threading, time, urllib.request

from jwcrypto import jwk, jws


def b64u(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64u(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Refusal(Exception):
    pass


class Resource:
    def __init__(self, require_nonce, jwks_url):
        self.require_nonce = require_nonce
        self.jwks_url = jwks_url
        self.seen = set()
        self.nonce = b64u(secrets.token_bytes(16)) if require_nonce else None
        self.lock = threading.Lock()

    def token_claims(self, token):
        if self.jwks_url:
            with urllib.request.urlopen(self.jwks_url, timeout=10) as r:
                keys = jwk.JWKSet.from_json(r.read())
            checked = jws.JWS()
            checked.deserialize(token)
            checked.verify(keys)  # raises when no key of the provider's signed it
        return json.loads(unb64u(token.split(".")[1]))

    def admit(self, method, url, authorization, proof):
        if not authorization or not authorization.startswith("DPoP "):
            raise Refusal("no DPoP authorization")
        token = authorization[5:]
        if not proof:
            raise Refusal("no DPoP proof")
        header = json.loads(unb64u(proof.split(".")[0]))
        if header.get("typ") != "dpop+jwt" or header.get("alg") != "ES256" or "d" in header.get("jwk", {}):
            raise Refusal("proof header is not typ dpop+jwt, alg ES256 with a public jwk")
        key = jwk.JWK(**header["jwk"])
        checked = jws.JWS()
        checked.deserialize(proof)
        try:
            checked.verify(key)
        except Exception:
            raise Refusal("proof signature does not verify")
        claims = json.loads(checked.payload)
        if claims.get("htm") != method or claims.get("htu") != url:
            raise Refusal(f"proof is for {claims.get('htm')} {claims.get('htu')}, not {method} {url}")
        if abs(time.time() - claims.get("iat", 0)) > 60:
            raise Refusal("proof iat is not within 60 s")
        if claims.get("ath") != b64u(hashlib.sha256(token.encode()).digest()):
            raise Refusal("proof ath is not the token's hash")
        with self.lock:
            if self.require_nonce and claims.get("nonce") != self.nonce:
                raise Refusal("use_dpop_nonce")
            if not isinstance(claims.get("jti"), str) or not claims["jti"]:
                raise Refusal("proof has no jti")
            if claims.get("jti") in self.seen:
                raise Refusal("replayed proof (jti seen before)")
            self.seen.add(claims.get("jti"))
        jkt = key.thumbprint()
        try:
            bound = self.token_claims(token).get("cnf", {}).get("jkt")
        except Exception as e:
            raise Refusal(f"token unreadable: {e}")
        if bound != jkt:
            raise Refusal("token is bound to another key (cnf.jkt is not the proof key's thumbprint)")
        return jkt


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--info", required=True)
    p.add_argument("--require-nonce", action="store_true")
    p.add_argument("--jwks")
    a = p.parse_args()
    resource = Resource(a.require_nonce, a.jwks)
    log = a.info + ".log"

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def answer(self):
            url = origin + self.path.split("?")[0].split("#")[0]
            headers = [("Content-Type", "application/json"), ("Cache-Control", "no-store")]
            try:
                jkt = resource.admit(self.command, url, self.headers.get("Authorization"), self.headers.get("DPoP"))
                status, body, line = 200, {"jkt": jkt}, "200 " + jkt
            except Refusal as r:
                reason = str(r)
                status, body, line = 401, {"error": "invalid_token", "reason": reason}, "401 " + reason
                if reason == "use_dpop_nonce":
                    body["error"] = "use_dpop_nonce"
                    headers += [("WWW-Authenticate", 'DPoP error="use_dpop_nonce"'), ("DPoP-Nonce", resource.nonce)]
                else:
                    headers.append(("WWW-Authenticate", 'DPoP error="invalid_token"'))
            data = json.dumps(body).encode()
            with open(log, "a") as f:
                f.write(line + "\n")
            self.send_response(status)
            for k, v in headers + [("Content-Length", str(len(data)))]:
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = answer

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True

    server = Server(("127.0.0.1", 0), Handler)
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    with open(a.info + ".tmp", "w") as f:
        json.dump({"origin": origin, "pid": os.getpid(), "log": log}, f)
        f.write("\n")
    os.rename(a.info + ".tmp", a.info)
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    server.serve_forever()


if __name__ == "__main__":
    main()
