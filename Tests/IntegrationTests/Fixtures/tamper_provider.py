#!/usr/bin/python3
"""A tampering reverse proxy in front of Glewlwyd, for testing an OIDC client's refusals.

tamper_provider.py --upstream http://127.0.0.1:GPORT --dir FRESH_DIR [--port 0]
tamper_provider.py --upstream-file FILE --dir FRESH_DIR   (the upstream written to FILE later)
                   [--stall-seconds 60] [--until auto|stdin|signal]

Listens on 127.0.0.1:PORT (plain http, loopback only) and passes every request
(method, path, query, headers, body; Host passed unchanged, Glewlwyd builds its
URLs from external_url) to the upstream and its answer back as is: redirects
are not followed (a 3xx and its Location go back untouched), every Set-Cookie
is passed, threads serve requests concurrently. Start Glewlwyd with
`glewlwyd_provider.py --public-origin http://127.0.0.1:PORT` so that its issuer
and endpoints name this proxy.

At each request the mode is read from DIR/mode (the test rewrites it; absent,
empty or "honest" = no tampering). Token endpoint = POST .../token (any grant),
JWKS = GET .../jwks, discovery = GET .../.well-known/openid-configuration.

  honest               pass through (the JWKS still gets the proxy's key appended)
  flip-signature       token: flip one bit of the id_token's signature
  swap-aud             token: aud -> "someone-else", re-signed with the proxy key
  change-nonce         token: nonce -> another value, re-signed
  expired              token: exp = now - 1 h, iat = now - 2 h, re-signed
  wrong-iss            token: iss -> "https://evil.example/api/oidc", re-signed
  future-iat           token: iat = now + 1 h (exp = iat + 1 h), re-signed
  resign-honest        token: payload untouched, re-signed (control: must verify)
  alg-none             token: header {"alg":"none","typ":"JWT"}, empty signature
  hs256                token: HS256, HMAC-SHA256 keyed with the proxy key's modulus bytes
  unknown-kid          token: re-signed, header kid "rotated-key", which no JWKS lists
  rotate-kid           token: re-signed with the proxy key; the FIRST JWKS fetch after
                       the mode file was (re)written lacks the proxy key, later ones have it
  issuer-mismatch      discovery: issuer + "/other"
  no-s256              discovery: code_challenge_methods_supported = ["plain"]
  cacheable-metadata   discovery: Cache-Control "max-age=300" instead of Glewlwyd's "no-store"
  stall-token          token: read the request, then send nothing for --stall-seconds
                       (then close the connection without an answer); Glewlwyd not asked
  token-error          token: 400 {"error":"invalid_grant",...}; Glewlwyd not asked
  token-unavailable    token: 503 text/plain, as a provider that is down; Glewlwyd not asked
  huge-token-response  token: 200 with a 3 MiB JSON body; Glewlwyd not asked
  html-token-response  token: 200 text/html; Glewlwyd not asked
  device-slow-down     token: 400 {"error":"slow_down"} (RFC 8628 §3.5), to every poll; Glewlwyd not asked
  device-denied        token: 400 {"error":"access_denied"}, as when the person refuses; Glewlwyd not asked
  par-no-request-uri   PAR (POST .../par): 201 {"expires_in":90} with no request_uri; Glewlwyd not asked
  dpop-nonce-forever   token: 400 {"error":"use_dpop_nonce"} with a new DPoP-Nonce header each time
                       (RFC 9449 §8), however the proof is made; Glewlwyd not asked
  dpop-nonce-missing   token: 400 {"error":"use_dpop_nonce"} with no DPoP-Nonce header; Glewlwyd not asked
  bearer-token-type    token: Glewlwyd's answer with token_type "Bearer" (a provider that did not bind)
  registration-refused       register: 400 {"error":"invalid_client_metadata",...}; Glewlwyd not asked
  registration-no-client-id  register: 201 with the request echoed and no client_id; Glewlwyd not asked
  registration-confidential  register: Glewlwyd's answer with a client_secret added (a confidential client)

In every mode, a client's registration (RFC 7591, POST .../register) and its
deletion (RFC 7592, DELETE .../register/ID) have Glewlwyd's departures from
the RFCs corrected, so the client is tested against what the RFCs say
(../shared/reference/test-provider-glewlwyd.md): `token_endpoint_auth_method`
"none" is taken out of the request (Glewlwyd would make a confidential client
of it; without it the client is public) and put back in the answer; RFC 8628's
device grant type is sent as Glewlwyd's `device_authorization` and named back;
the registration's 200 is answered 201, the deletion's 200 is answered 204.

Re-signing uses the proxy's own RSA-2048 key (openssl CLI, made at start), RS256,
header {"alg":"RS256","kid":KEY_ID,"typ":"JWT"}; KEY_ID is the RFC 7638
thumbprint of its JWK. The JWKS answer gets that JWK appended in every mode
(except the first fetch in rotate-kid). An unknown mode answers 500.

Prints ONE JSON line when listening: {"origin", "port", "pid", "mode_file",
"requests_log", "key_id", "upstream", "key", "public_key", "startup_seconds"}.
Each request adds one JSON line to requests_log: time, method, path, status,
mode, tampered (what was changed, or null), upstream (was Glewlwyd asked),
ms (until the answer starts; a stalled request is logged when the stall
begins), for the token endpoint grant_type, scope, resource (a list), audience, dpop and dpop_jkt (the DPoP proof's payload claims and its key's thumbprint, or null) and id_token_diff ({"header": [names],
"claims": [names], "signature_changed"}: computed by comparing Glewlwyd's
id_token with the one sent on), and for the JWKS jwks_fetch (count since the mode file changed) and
jwks_fetch_total. Stops on SIGTERM/SIGINT/SIGHUP, or stdin EOF when stdin is
a pipe, socket or tty. Errors: one line on stderr, exit 1.
"""
import argparse, base64, gzip, hashlib, hmac, http.client, http.server, json, os, socket
import socketserver, subprocess, sys, threading, time, urllib.parse, zlib

from fixture_process import run_until_stopped, stop_on_signals

HOP_BY_HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
              "trailers", "transfer-encoding", "upgrade", "proxy-connection", "expect"}
TOKEN_MODES = {"flip-signature", "swap-aud", "change-nonce", "expired", "wrong-iss", "future-iat",
               "resign-honest", "alg-none", "hs256", "unknown-kid", "rotate-kid"}
CANNED_MODES = {"stall-token", "token-error", "token-unavailable", "huge-token-response", "html-token-response", "device-slow-down",
                "device-denied", "dpop-nonce-forever", "dpop-nonce-missing"}
DISCOVERY_MODES = {"issuer-mismatch", "no-s256", "cacheable-metadata"}
# hold-token-answer: the token request goes to the provider (which answers, and spends what it was given), the
# request is logged with "held": true, and the answer is held until the file "release" appears in --dir (60 s at
# most): a test can stop the client while the answer it paid for is on its way.
# Client registration (RFC 7591): canned answers, Glewlwyd not asked.
REGISTRATION_MODES = {"registration-refused", "registration-no-client-id", "registration-confidential"}
MODES = ({"honest", "par-no-request-uri", "bearer-token-type", "hold-token-answer"} | TOKEN_MODES | CANNED_MODES
         | DISCOVERY_MODES | REGISTRATION_MODES)
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
WRONG_ISS = "https://evil.example/api/oidc"
OTHER_AUD = "someone-else"
HUGE_BYTES = 3 * 1024 * 1024


class Failure(Exception):
    pass


def b64u(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64u(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def compact(obj):
    return json.dumps(obj, separators=(",", ":")).encode()


def run(argv, data=None):
    r = subprocess.run(argv, input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        raise Failure(f"{' '.join(argv[:3])} failed ({r.returncode}): {r.stderr.decode(errors='replace').strip()}")
    return r.stdout


class Key:
    """The proxy's RSA-2048 key: PEM files, JWK, RS256 signing through `openssl dgst`."""

    def __init__(self, d):
        self.path, self.public = os.path.join(d, "proxy-key.pem"), os.path.join(d, "proxy-pub.pem")
        run(["openssl", "genrsa", "-out", self.path, "2048"])
        run(["openssl", "rsa", "-in", self.path, "-pubout", "-out", self.public])
        text = run(["openssl", "rsa", "-in", self.path, "-noout", "-text"]).decode()
        if "publicExponent: 65537 (0x10001)" not in text:
            raise Failure("the proxy key's public exponent is not 65537")
        modulus = run(["openssl", "rsa", "-in", self.path, "-noout", "-modulus"]).decode().strip()
        if not modulus.startswith("Modulus="):
            raise Failure(f"unexpected `openssl rsa -modulus` output {modulus[:40]!r}")
        self.n = bytes.fromhex(modulus[len("Modulus="):])
        if len(self.n) != 256:
            raise Failure(f"the proxy key's modulus has {len(self.n)} bytes, not 256")
        thumb = compact({"e": "AQAB", "kty": "RSA", "n": b64u(self.n)})  # RFC 7638: sorted, compact
        self.kid = b64u(hashlib.sha256(thumb).digest())
        self.jwk = {"kty": "RSA", "n": b64u(self.n), "e": "AQAB", "kid": self.kid, "alg": "RS256", "use": "sig"}

    def sign_rs256(self, signing_input):
        return run(["openssl", "dgst", "-sha256", "-sign", self.path], signing_input)


class State:
    def __init__(self, args, key, d, stop):
        self.upstream_text = args.upstream
        self.upstream_file = args.upstream_file
        self.key, self.dir = key, d
        self.mode_file, self.log_path = os.path.join(d, "mode"), os.path.join(d, "requests.jsonl")
        self.stall = args.stall_seconds
        self.stop = stop
        self.lock = threading.Lock()
        self.generation = None  # identity of the mode file's content as last seen
        self.jwks_since_mode = 0
        self.jwks_total = 0
        self.log = open(self.log_path, "a", buffering=1)

    def upstream(self):
        """--upstream, or what --upstream-file says (written once the proxy's own port was known:
        the proxy binds port 0 first, so no port is picked free and lost before it is bound)."""
        text = self.upstream_text
        if text is None:
            with open(self.upstream_file) as f:
                text = f.read().strip()
        return urllib.parse.urlsplit(text)

    def mode(self):
        """(mode, generation): generation changes whenever the test (re)writes the file."""
        try:
            with open(self.mode_file) as f:
                st = os.fstat(f.fileno())
                text = f.read().strip()
            return (text or "honest"), (text, st.st_ino, st.st_mtime_ns, st.st_size)
        except FileNotFoundError:
            return "honest", None

    def count_jwks(self, generation):
        with self.lock:
            if generation != self.generation:
                self.generation, self.jwks_since_mode = generation, 0
            self.jwks_since_mode += 1
            self.jwks_total += 1
            return self.jwks_since_mode, self.jwks_total

    def note_mode(self, generation):
        with self.lock:
            if generation != self.generation:
                self.generation, self.jwks_since_mode = generation, 0

    def record(self, entry):
        line = json.dumps(entry)
        with self.lock:
            self.log.write(line + "\n")


def proof_claims(proof):
    """A DPoP proof header's payload and its key's RFC 7638 thumbprint (not verified: the log
    says what was sent), or (None, None)."""
    if not proof:
        return None, None
    try:
        parts = proof.split(".")
        k = json.loads(unb64u(parts[0]))["jwk"]
        canonical = compact({"crv": k["crv"], "kty": k["kty"], "x": k["x"], "y": k["y"]})
        return json.loads(unb64u(parts[1])), b64u(hashlib.sha256(canonical).digest())
    except (IndexError, KeyError, ValueError):
        return {"unreadable": proof[:40]}, None


def tamper_id_token(state, mode, token):
    """Returns (new token, description)."""
    parts = token.split(".")
    if len(parts) != 3:
        return token, f"id_token is not a JWS compact serialisation ({len(parts)} parts): left alone"
    header, payload = json.loads(unb64u(parts[0])), json.loads(unb64u(parts[1]))
    now = int(time.time())
    if mode == "flip-signature":
        sig = bytearray(unb64u(parts[2]))
        sig[len(sig) // 2] ^= 0x01
        return ".".join(parts[:2] + [b64u(bytes(sig))]), f"flipped bit 0 of signature byte {len(sig) // 2}"
    what = None
    if mode == "swap-aud":
        what = f"aud {payload.get('aud')!r} -> {OTHER_AUD!r}"
        payload["aud"] = OTHER_AUD
    elif mode == "change-nonce":
        new = "tampered-" + hashlib.sha256(str(payload.get("nonce")).encode()).hexdigest()[:16]
        what = f"nonce {payload.get('nonce')!r} -> {new!r}"
        payload["nonce"] = new
    elif mode == "expired":
        what = f"exp {payload.get('exp')} -> {now - 3600}, iat {payload.get('iat')} -> {now - 7200}"
        payload["exp"], payload["iat"] = now - 3600, now - 7200
    elif mode == "wrong-iss":
        what = f"iss {payload.get('iss')!r} -> {WRONG_ISS!r}"
        payload["iss"] = WRONG_ISS
    elif mode == "future-iat":
        what = f"iat {payload.get('iat')} -> {now + 3600}, exp {payload.get('exp')} -> {now + 7200}"
        payload["iat"], payload["exp"] = now + 3600, now + 7200
    elif mode in ("resign-honest", "rotate-kid"):
        what = "payload untouched"
    elif mode == "unknown-kid":
        what = "payload untouched, kid 'rotated-key'"
    if mode == "alg-none":
        head = b64u(compact({"alg": "none", "typ": "JWT"}))
        return f"{head}.{parts[1]}.", "alg none, empty signature, payload untouched"
    body = b64u(compact(payload)) if mode not in ("resign-honest", "rotate-kid", "unknown-kid") else parts[1]
    if mode == "hs256":
        head = b64u(compact({"alg": "HS256", "typ": "JWT"}))
        sig = hmac.new(state.key.n, f"{head}.{body}".encode(), hashlib.sha256).digest()
        return f"{head}.{body}.{b64u(sig)}", "alg HS256, HMAC keyed with the proxy key's modulus bytes, payload untouched"
    kid = "rotated-key" if mode == "unknown-kid" else state.key.kid
    head = b64u(compact({"alg": "RS256", "kid": kid, "typ": "JWT"}))
    sig = state.key.sign_rs256(f"{head}.{body}".encode())
    return f"{head}.{body}.{b64u(sig)}", f"{what}; re-signed RS256 kid {kid}"


def rfc7591_to_glewlwyd(body):
    """A registration as RFC 7591 has it, made one Glewlwyd reads the same way: what was changed, to undo."""
    doc = json.loads(body or b"{}")
    undo = []
    if doc.get("token_endpoint_auth_method") == "none":
        del doc["token_endpoint_auth_method"]
        undo.append("token_endpoint_auth_method")
    grants = doc.get("grant_types")
    if isinstance(grants, list) and DEVICE_GRANT in grants:
        doc["grant_types"] = ["device_authorization" if g == DEVICE_GRANT else g for g in grants]
        undo.append("device_authorization")
    return compact(doc), undo


def glewlwyd_to_rfc7591(rbody, undo, status):
    """Glewlwyd's answer with the request's corrections taken back, so it echoes what was sent."""
    if not 200 <= status < 300:
        return rbody, []
    doc = json.loads(rbody)
    changes = []
    if "token_endpoint_auth_method" in undo and "token_endpoint_auth_method" not in doc:
        doc["token_endpoint_auth_method"] = "none"
        changes.append("token_endpoint_auth_method none: taken out of the request, put back in the answer")
    if "device_authorization" in undo and isinstance(doc.get("grant_types"), list):
        doc["grant_types"] = [DEVICE_GRANT if g == "device_authorization" else g for g in doc["grant_types"]]
        changes.append("device grant sent as device_authorization, named back")
    return compact(doc), changes


def jws_diff(old, new):
    """What differs between two compact JWS: header members, payload claims, signature."""
    def parts(t):
        h, p, s = (t.split(".") + ["", "", ""])[:3]
        try:
            return json.loads(unb64u(h)), json.loads(unb64u(p)), s
        except ValueError:
            return {}, {}, s
    (h1, p1, s1), (h2, p2, s2) = parts(old), parts(new)
    differ = lambda a, b: sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    return {"header": differ(h1, h2), "claims": differ(p1, p2), "signature_changed": s1 != s2}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # TCP_NODELAY, as real servers set it: the headers and the body go out in two writes, and with Nagle on a
    # kept-alive connection the body waits for the client's delayed ACK (40 ms), which no provider would add.
    disable_nagle_algorithm = True
    server_version = "tamper_provider"
    state = None  # set in main

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.handle_any()

    do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = do_GET

    def read_body(self):
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def done(self):
        """Writes the request's log line once, BEFORE the answer goes out, so that a test that
        has its answer also finds the line."""
        entry = self.entry
        if entry is not None:
            self.entry = None
            entry["ms"] = round((time.monotonic() - self.t0) * 1000, 2)
            self.state.record(entry)

    def send(self, status, headers, body):
        self.done()
        self.send_response_only(status)
        for k, v in headers:
            self.send_header(k, v)
        if status >= 200 and status not in (204, 304) and self.command != "HEAD":
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD" and body:
            self.wfile.write(body)
        self.wfile.flush()

    def handle_any(self):
        st = self.state
        self.t0 = time.monotonic()
        path = urllib.parse.urlsplit(self.path).path
        mode, generation = st.mode()
        entry = self.entry = {"time": round(time.time(), 3), "method": self.command, "path": path, "mode": mode,
                              "tampered": None, "upstream": True}
        try:
            body = self.read_body()
            is_token = self.command == "POST" and path.endswith("/token")
            is_jwks = self.command == "GET" and path.endswith("/jwks")
            is_disc = self.command == "GET" and path.endswith("/.well-known/openid-configuration")
            if is_token:
                form = urllib.parse.parse_qs(body.decode(errors="replace"))
                entry["grant_type"] = form.get("grant_type", [None])[0]
                # What a refresh asked for besides the refresh token (RFC 6749 §6 scope, RFC 8707 resource, audience).
                entry["scope"] = form.get("scope", [None])[0]
                entry["resource"] = form.get("resource", [])
                entry["audience"] = form.get("audience", [None])[0]
            if is_token or (self.command == "POST" and path.endswith("/par")):
                entry["dpop"], entry["dpop_jkt"] = proof_claims(self.headers.get("DPoP"))
            if self.command == "POST" and path.endswith("/revoke"):
                entry["token_type_hint"] = urllib.parse.parse_qs(body.decode(errors="replace")).get("token_type_hint", [None])[0]
            if mode not in MODES:
                entry["upstream"] = False
                entry["status"] = 500
                self.send(500, [("Content-Type", "text/plain")], f"tamper_provider: unknown mode {mode!r}\n".encode())
                return
            if is_jwks:
                entry["jwks_fetch"], entry["jwks_fetch_total"] = st.count_jwks(generation)
            else:
                st.note_mode(generation)
            if self.command == "POST" and path.endswith("/par") and mode == "par-no-request-uri":
                entry["upstream"] = False
                entry["tampered"], entry["status"] = "canned 201 without request_uri", 201
                self.send(201, [("Content-Type", "application/json"), ("Cache-Control", "no-store")], compact({"expires_in": 90}))
                return
            if is_token and mode in CANNED_MODES:
                entry["upstream"] = False
                self.canned(mode, entry)
                return
            if is_token and mode == "hold-token-answer":
                status, headers, rbody = self.forward(body, plain=False)
                entry["status"], entry["held"] = status, True
                entry["tampered"] = "answer held until the release file appeared"
                self.done()  # logged once the provider has answered, before the answer is held
                release, deadline = os.path.join(st.dir, "release"), time.monotonic() + 60
                while not os.path.exists(release) and time.monotonic() < deadline and not st.stop.is_set():
                    st.stop.wait(0.02)
                self.send(status, headers, rbody)
                # Said once the held answer is written to the client's socket: a test waits on this, not on a sleep.
                with open(os.path.join(st.dir, "delivered"), "a") as f:
                    f.write("1\n")
                return
            is_register = self.command == "POST" and path.endswith("/register")
            is_unregister = self.command == "DELETE" and "/register/" in path
            if is_register:
                entry["registration"] = json.loads(body or b"{}")
                if mode in REGISTRATION_MODES and mode != "registration-confidential":
                    entry["upstream"] = False
                    self.canned_registration(mode, entry)
                    return
                body, undo = rfc7591_to_glewlwyd(body)
                status, headers, rbody = self.forward(body, plain=True)
                rbody, changes = glewlwyd_to_rfc7591(rbody, undo, status)
                if status == 200:
                    status, changes = 201, changes + ["200 -> 201"]
                if mode == "registration-confidential" and status == 201:
                    doc = json.loads(rbody)
                    doc["client_secret"] = "a-secret-linkrouter-never-asked-for"
                    rbody, changes = compact(doc), changes + ["client_secret added"]
                entry["tampered"], entry["status"] = "; ".join(changes) or None, status
                entry["answer"] = rbody[:600].decode(errors="replace")
                self.send(status, [(k, v) for k, v in headers if k.lower() != "content-encoding"], rbody)
                return
            if is_unregister:
                status, headers, rbody = self.forward(body, plain=True)
                if status == 200:
                    entry["tampered"], status, rbody = "200 -> 204", 204, b""
                    headers = [(k, v) for k, v in headers if k.lower() != "content-type"]
                entry["status"] = status
                self.send(status, headers, rbody)
                return
            rewrite = is_token or is_jwks or is_disc
            status, headers, rbody = self.forward(body, plain=rewrite)
            if rewrite and 200 <= status < 300:
                rbody, headers = self.rewrite(mode, is_token, is_jwks, is_disc, entry, headers, rbody)
            entry["status"] = status
            if is_token and not 200 <= status < 300:
                # What the provider said when it refused, so that a failing test can say it too.
                entry["answer"] = rbody[:400].decode(errors="replace")
            self.send(status, headers, rbody)
        except (BrokenPipeError, ConnectionResetError) as e:
            self.close_connection = True
            if self.entry is None:  # already logged: add a line saying the answer did not get through
                st.record({"time": round(time.time(), 3), "method": self.command, "path": path,
                           "client_gone": repr(e)})
            entry["client_gone"] = repr(e)
        except Exception as e:  # answer 502 and say why (unless the answer had begun)
            self.close_connection = True
            if self.entry is None:
                st.record({"time": round(time.time(), 3), "method": self.command, "path": path, "error": repr(e)})
            else:
                entry["error"], entry["status"] = repr(e), 502
                try:
                    self.send(502, [("Content-Type", "text/plain")], f"tamper_provider: {e!r}\n".encode())
                except OSError:
                    pass
        finally:
            self.done()

    def forward(self, body, plain):
        st = self.state
        upstream = st.upstream()
        conn = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=30)
        try:
            headers = {}
            conn.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
            for k, v in self.headers.items():
                lk = k.lower()
                if lk in HOP_BY_HOP or lk == "content-length" or (plain and lk == "accept-encoding"):
                    continue
                conn.putheader(k, v)
            if body or self.command in ("POST", "PUT", "PATCH"):
                conn.putheader("Content-Length", str(len(body)))
            conn.putheader("Connection", "close")
            conn.endheaders(body if body else None)
            r = conn.getresponse()
            rbody = r.read()
            keep_length = self.command == "HEAD"  # no body here: pass the upstream's Content-Length as is
            headers = [(k, v) for k, v in r.getheaders()
                       if k.lower() not in HOP_BY_HOP and (keep_length or k.lower() != "content-length")]
            return r.status, headers, rbody
        finally:
            conn.close()

    def rewrite(self, mode, is_token, is_jwks, is_disc, entry, headers, rbody):
        enc = next((v.lower() for k, v in headers if k.lower() == "content-encoding"), None)
        if enc in ("gzip", "x-gzip"):
            rbody = gzip.decompress(rbody)
        elif enc == "deflate":
            rbody = zlib.decompress(rbody)
        if enc:
            headers = [(k, v) for k, v in headers if k.lower() != "content-encoding"]
        doc = json.loads(rbody)
        changed = []
        if is_jwks:
            if mode == "rotate-kid" and entry["jwks_fetch"] == 1:
                changed.append("proxy key withheld (first JWKS fetch in rotate-kid)")
            else:
                doc.setdefault("keys", []).append(self.state.key.jwk)
                changed.append(f"appended proxy key kid {self.state.key.kid}")
        elif is_disc:
            if mode == "issuer-mismatch":
                changed.append(f"issuer {doc.get('issuer')!r} -> {doc.get('issuer', '') + '/other'!r}")
                doc["issuer"] = doc.get("issuer", "") + "/other"
            elif mode == "no-s256":
                changed.append(f"code_challenge_methods_supported {doc.get('code_challenge_methods_supported')} -> ['plain']")
                doc["code_challenge_methods_supported"] = ["plain"]
            elif mode == "cacheable-metadata":
                was = next((v for k, v in headers if k.lower() == "cache-control"), None)
                headers = [(k, v) for k, v in headers if k.lower() != "cache-control"] + [("Cache-Control", "max-age=300")]
                changed.append(f"Cache-Control {was!r} -> 'max-age=300'")
        elif is_token and mode == "bearer-token-type":
            changed.append(f"token_type {doc.get('token_type')!r} -> 'Bearer'")
            doc["token_type"] = "Bearer"
        elif is_token and mode in TOKEN_MODES:
            if "id_token" in doc:
                old = doc["id_token"]
                doc["id_token"], what = tamper_id_token(self.state, mode, old)
                changed.append("id_token: " + what)
                entry["id_token_diff"] = jws_diff(old, doc["id_token"])
            else:
                changed.append("no id_token in the response: nothing tampered")
        if not changed or changed == ["no id_token in the response: nothing tampered"]:
            entry["tampered"] = changed[0] if changed else None
            return rbody, headers  # as Glewlwyd sent it (decompressed if it was compressed)
        entry["tampered"] = "; ".join(changed)
        return compact(doc), headers

    def canned_registration(self, mode, entry):
        if mode == "registration-refused":
            entry["tampered"], entry["status"] = "canned 400 invalid_client_metadata", 400
            self.send(400, [("Content-Type", "application/json")],
                      compact({"error": "invalid_client_metadata", "error_description": "redirect_uris not allowed here"}))
        else:
            entry["tampered"], entry["status"] = "canned 201 without client_id", 201
            self.send(201, [("Content-Type", "application/json")], compact(entry["registration"]))

    def canned(self, mode, entry):
        st = self.state
        if mode == "stall-token":
            entry["tampered"] = f"stalled {st.stall:g} s, then closed without an answer"
            entry["status"] = None
            self.done()  # logged when the stall begins
            st.stop.wait(st.stall)
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        if mode == "dpop-nonce-forever":
            nonce = b64u(os.urandom(12))
            entry["tampered"], entry["status"] = f"canned 400 use_dpop_nonce, DPoP-Nonce {nonce}", 400
            self.send(400, [("Content-Type", "application/json"), ("Cache-Control", "no-store"), ("DPoP-Nonce", nonce)],
                      compact({"error": "use_dpop_nonce", "error_description": "Authorization server requires nonce in DPoP proof"}))
            return
        if mode == "dpop-nonce-missing":
            entry["tampered"], entry["status"] = "canned 400 use_dpop_nonce without DPoP-Nonce", 400
            self.send(400, [("Content-Type", "application/json"), ("Cache-Control", "no-store")], compact({"error": "use_dpop_nonce"}))
            return
        if mode == "token-error":
            status, ctype = 400, "application/json"
            body = compact({"error": "invalid_grant", "error_description": "tampered: code rejected"})
        elif mode in ("device-slow-down", "device-denied"):
            status, ctype = 400, "application/json"
            body = compact({"error": "slow_down" if mode == "device-slow-down" else "access_denied"})
        elif mode == "token-unavailable":
            status, ctype = 503, "text/plain"
            body = b"Service Unavailable\n"
        elif mode == "huge-token-response":
            status, ctype = 200, "application/json"
            head, tail = b'{"token_type":"bearer","expires_in":3600,"access_token":"', b'"}'
            body = head + b"A" * (HUGE_BYTES - len(head) - len(tail)) + tail
        else:
            status, ctype = 200, "text/html; charset=utf-8"
            body = b"<!DOCTYPE html><html><head><title>Sign in</title></head><body><p>Please sign in.</p></body></html>\n"
        entry["tampered"] = f"canned {status} {ctype}, {len(body)} bytes"
        entry["status"] = status
        self.send(status, [("Content-Type", ctype), ("Cache-Control", "no-store")], body)


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--upstream", help="Glewlwyd's own origin, http://127.0.0.1:GPORT")
    p.add_argument("--upstream-file", help="a file the upstream origin is written to later (instead of --upstream)")
    p.add_argument("--dir", required=True, help="fresh private work directory (created 0700)")
    p.add_argument("--port", type=int, default=0, help="0 picks a free port")
    p.add_argument("--stall-seconds", type=float, default=60.0, help="how long stall-token sends nothing")
    p.add_argument("--until", choices=("auto", "stdin", "signal"), default="auto")
    a = p.parse_args()
    if (a.upstream is None) == (a.upstream_file is None):
        print("tamper_provider: give --upstream or --upstream-file", file=sys.stderr)
        return 2
    up = urllib.parse.urlsplit(a.upstream or "http://127.0.0.1:1")
    if up.scheme != "http" or not up.hostname or not up.port or up.path not in ("", "/"):
        print(f"tamper_provider: --upstream must be http://HOST:PORT, not {a.upstream!r}", file=sys.stderr)
        return 2

    stop = stop_on_signals()
    t0 = time.monotonic()
    server = None
    try:
        d = os.path.abspath(a.dir)
        if os.path.exists(d) and os.listdir(d):
            raise Failure(f"--dir {d} is not empty: give a fresh directory")
        os.makedirs(d, mode=0o700, exist_ok=True)
        os.chmod(d, 0o700)
        state = State(a, Key(d), d, stop)
        Handler.state = state
        try:
            server = Server(("127.0.0.1", a.port), Handler)
        except OSError as e:
            raise Failure(f"cannot listen on 127.0.0.1:{a.port}: {e}")
        port = server.server_address[1]
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()
        info = {"origin": f"http://127.0.0.1:{port}", "port": port, "pid": os.getpid(),
                "mode_file": state.mode_file, "requests_log": state.log_path, "key_id": state.key.kid,
                "upstream": a.upstream or ("file:" + a.upstream_file), "key": state.key.path, "public_key": state.key.public,
                "startup_seconds": round(time.monotonic() - t0, 3)}
        sys.stdout.write(json.dumps(info) + "\n")
        sys.stdout.flush()
        run_until_stopped(stop, a.until)
        return 0
    except Failure as e:
        print(f"tamper_provider: {e}", file=sys.stderr)
        return 1
    finally:
        stop.set()  # releases stalled token requests
        if server is not None:
            server.shutdown()
            server.server_close()


if __name__ == "__main__":
    sys.exit(main())
