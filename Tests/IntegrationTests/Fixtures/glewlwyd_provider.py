#!/usr/bin/python3
"""A private Glewlwyd OpenID provider for one test (Debian's `glewlwyd` 2.7).

glewlwyd_provider.py --dir DIR --redirect-uri URI [--redirect-uri URI ...]
                     [--client-id ID] [--port N] [--until auto|stdin|signal]
                     [--public-origin http://127.0.0.1:PROXYPORT]

Makes DIR (0700, must be empty or absent): a SQLite database from the shipped
init script, an RSA-2048 key and certificate (openssl CLI), a copy of the
login web app (Glewlwyd answers 404 for symlinked static files), and the
config. Starts `glewlwyd -c DIR/glewlwyd.conf` on 127.0.0.1:PORT, waits until
it answers, and bootstraps it through the admin REST API:

  * OIDC plugin `oidc`: RS256, PKCE required with S256 only, `iss` on the
    redirect (RFC 9207), code and refresh_token grants, name/email claims;
  * scopes `email` and `profile` (besides the shipped `openid`);
  * user alice (password, name, email) allowed openid/email/profile;
  * public client CLIENT_ID with exactly the given redirect URIs;
  * with --confidential-client ID:SECRET, also a confidential client (a peer's).

Then prints ONE JSON line on stdout (issuer, endpoints, credentials, pid,
port, login_page) and stays in the foreground.

--public-origin ORIGIN (for a proxy in front, e.g. tamper_provider.py): Glewlwyd's
`external_url` and the OIDC plugin's `iss` become ORIGIN and ORIGIN/api/oidc, so
discovery's issuer and endpoints, the ID tokens' `iss` and the redirect's `iss`
(RFC 9207) name the proxy. The start-up check still asks Glewlwyd directly (the
proxy need not run yet) but expects the public issuer and endpoints. The printed
URLs are the public ones, plus "direct_origin" (Glewlwyd's own origin). It stops glewlwyd and exits 0
on SIGTERM/SIGINT/SIGHUP, or when its stdin reaches EOF if stdin is a pipe,
socket or terminal (`--until auto`; a /dev/null stdin is ignored so that a
spawner giving /dev/null does not stop it at once). glewlwyd gets
PR_SET_PDEATHSIG=SIGKILL, so it dies even if this process is SIGKILLed.
If glewlwyd dies on its own, this exits 1. Errors: a message on stderr, exit 1.
The system service on port 4593 is neither used nor touched.
"""
import argparse, gzip, http.cookiejar, json, os, shutil, socket, sqlite3
import subprocess, sys, time, urllib.error, urllib.parse, urllib.request

from fixture_process import die_with_parent, run_until_stopped, stop_on_signals

WEBAPP = "/usr/share/glewlwyd/webapp"
WEBAPP_CONFIG = "/etc/glewlwyd/config-2.7.json/config.json"  # Debian: a directory holding the file
INIT_SQL = "/usr/share/doc/glewlwyd/database/init.sqlite3.sql.gz"
MODULES = "/usr/lib/glewlwyd"
ADMIN = ("admin", "password")  # from the shipped SQL
USERNAME, PASSWORD = "alice", "alice-Passw0rd"
NAME, EMAIL = "Alice Example", "alice@example.com"
SYSTEM_PORT = 4593

MIME = [(".html", "text/html"), (".css", "text/css"), (".js", "application/javascript"),
        (".json", "application/json"), (".png", "image/png"), (".jpg", "image/jpeg"),
        (".svg", "image/svg+xml"), (".ttf", "font/ttf"), (".woff", "font/woff"),
        (".woff2", "font/woff2"), (".otf", "font/otf"), (".eot", "application/vnd.ms-fontobject"),
        (".map", "application/octet-stream"), (".ico", "image/x-icon")]


class Failure(Exception):
    pass


def free_port():
    while True:
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        if port != SYSTEM_PORT:
            return port


def run(argv):
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise Failure(f"{argv[0]} {argv[1]} failed ({r.returncode}): {r.stderr.strip()}")
    return r.stdout


# The ID-token signing key: Glewlwyd's jwt-type, and how openssl makes the key.
SIGNING = {
    "rsa": ["openssl", "genrsa", "-out", None, "2048"],
    "ecdsa": ["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", None],
    "eddsa": ["openssl", "genpkey", "-algorithm", "ed25519", "-out", None],
    "rsa-pss": ["openssl", "genrsa", "-out", None, "2048"],
}


def prepare(d, port, external=None, signing="rsa"):
    if os.path.exists(d) and os.listdir(d):
        raise Failure(f"--dir {d} is not empty: give a fresh directory")
    os.makedirs(d, mode=0o700, exist_ok=True)
    os.chmod(d, 0o700)
    key, cert = os.path.join(d, "oidc-key.pem"), os.path.join(d, "oidc-cert.pem")
    run([key if a is None else a for a in SIGNING[signing]])
    run(["openssl", "req", "-x509", "-new", "-key", key, "-out", cert, "-days", "2", "-subj", "/CN=glewlwyd-test"])
    db = os.path.join(d, "glewlwyd.db")
    with gzip.open(INIT_SQL, "rt") as f:
        script = f.read()
    con = sqlite3.connect(db)
    con.executescript(script)
    con.close()
    webapp = os.path.join(d, "webapp")
    # Copy, never link: Glewlwyd serves no symlinked file. config.json is a link to a directory.
    shutil.copytree(WEBAPP, webapp, ignore=shutil.ignore_patterns("config.json"))
    shutil.copyfile(WEBAPP_CONFIG, os.path.join(webapp, "config.json"))
    mime = ",\n".join(f'  {{ extension = "{e}" mime_type = "{m}" }}' for e, m in MIME)
    conf = os.path.join(d, "glewlwyd.conf")
    with open(conf, "w") as f:
        f.write(f"""port={port}
bind_address="127.0.0.1"
external_url="{external or f'http://127.0.0.1:{port}'}"
login_url="login.html"
api_prefix="api"
static_files_path="{webapp}/"
allow_origin="*"
log_mode="console"
log_level="WARNING"
cookie_secure=0
cookie_same_site="empty"
session_expiration=2419200
session_key="GLEWLWYD2_SESSION_ID"
admin_session_authentication="cookie"
profile_session_authentication="cookie"
allow_multiple_user_per_session=true
login_api_enabled=true
admin_scope="g_admin"
profile_scope="g_profile"
user_module_path="{MODULES}/user"
client_module_path="{MODULES}/client"
user_auth_scheme_module_path="{MODULES}/scheme"
plugin_module_path="{MODULES}/plugin"
hash_algorithm="SHA512"
database = {{ type = "sqlite3" path = "{db}" }};
static_files_mime_types = (
{mime}
);
""")
    with open(key) as f1, open(cert) as f2:
        return conf, f1.read(), f2.read()


class Api:
    def __init__(self, base):
        self.base = base
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def call(self, method, path, body=None, ok=(200,)):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"} if data else {})
        try:
            with self.opener.open(req, timeout=10) as r:
                status, text = r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            status, text = e.code, e.read().decode(errors="replace")
        if status not in ok:
            raise Failure(f"{method} {path}: HTTP {status} {text[:500]}")
        return json.loads(text) if text.strip().startswith(("{", "[")) else text


def wait_until_answering(proc, base, deadline):
    """Polls login.html until it answers 200; fails at once if glewlwyd exits."""
    delay = 0.01
    while True:
        if proc.poll() is not None:
            raise Failure(f"glewlwyd exited with {proc.returncode} before answering")
        try:
            with urllib.request.urlopen(base + "/login.html", timeout=2) as r:
                if r.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, OSError):
            pass
        if time.monotonic() > deadline:
            raise Failure(f"glewlwyd did not answer on {base} within the deadline")
        time.sleep(delay)
        delay = min(delay * 2, 0.2)


def bootstrap(api, issuer, client_id, redirect_uris, key, cert, access_token_duration=3600, revocation=False, par="off", signing="rsa",
              device_expiration=0, dpop="off", one_use=False, confidential=None, registration=False):
    api.call("POST", "/api/auth/", {"username": ADMIN[0], "password": ADMIN[1]})
    for name, display in (("email", "E-mail address"), ("profile", "Name")):
        api.call("POST", "/api/scope/", {"name": name, "display_name": display, "description": display,
                                          "password_required": False, "password_max_age": 0, "scheme": {}})
    params = {
        "iss": issuer,
        "oauth-as-iss-id": True,
        # 256 for every type: with ecdsa, 384 would sign ES512 (Glewlwyd bug 9).
        "jwt-type": signing, "jwt-key-size": "256", "key": key, "cert": cert,
        "access-token-duration": access_token_duration, "refresh-token-duration": 1209600, "code-duration": 600,
        "refresh-token-rolling": True, "allow-non-oidc": False,
        "auth-type-code-enabled": True, "auth-type-code-revoke-replayed": True,
        "auth-type-token-enabled": False, "auth-type-id-token-enabled": False, "auth-type-none-enabled": False,
        "auth-type-password-enabled": False, "auth-type-client-enabled": False, "auth-type-device-enabled": device_expiration > 0,
        "auth-type-refresh-enabled": True,
        "scope": [], "additional-parameters": [], "claims": [],
        "jwks-show": True, "jwks-x5c": [],
        "request-parameter-allow": False, "secret-type": "pairwise",
        "address-claim": {"type": "no", "formatted": "", "street_address": "", "locality": "", "region": "",
                          "postal_code": "", "country": "", "mandatory": False},
        "name-claim": "mandatory", "name-claim-scope": ["profile"],
        "email-claim": "mandatory", "email-claim-scope": ["email"],
        "scope-claim": "no", "scope-claim-scope": [],
        "allowed-scope": ["openid", "email", "profile"],
        "pkce-allowed": True, "pkce-required": True, "pkce-required-public-client": True,
        "pkce-method-plain-allowed": False, "pkce-scopes": [],
        # Revocation (RFC 7009) for a client as itself; Glewlwyd answers public clients 401.
        "introspection-revocation-allowed": revocation, "introspection-revocation-allow-target-client": revocation,
        # PAR (RFC 9126): allowed, or required (a plain GET /auth is then refused).
        "oauth-par-allowed": par != "off", "oauth-par-required": par == "required",
        "oauth-par-request_uri-prefix": "urn:ietf:params:oauth:request_uri:", "oauth-par-duration": 90,
        # DPoP (RFC 9449): listed in discovery (and dpop_jkt honoured) only while allowed; with
        # "nonce", every token request is first answered use_dpop_nonce (§8). Glewlwyd issues
        # DPoP-bound tokens for any proof even when not allowed (bug 2 in the reference notes).
        "oauth-dpop-allowed": dpop != "off", "oauth-dpop-iat-duration": 60, "oauth-dpop-nonce-mandatory": dpop == "nonce", "oauth-dpop-nonce-counter": 100,
        # Client registration (RFC 7591) with its management (RFC 7592): a client deletes itself. "open" to anyone;
        # "token": only with an initial access token carrying the scope "dcr", spent once (minted by the confidential
        # client "registrar" with client_credentials, which needs allow-non-oidc and the client grant).
        "register-client-allowed": bool(registration), "register-client-management-allowed": bool(registration),
        "register-client-auth-scope": ["dcr"] if registration == "token" else [],
        "register-client-token-one-use": registration == "token",
        # The device grant (RFC 8628): codes valid this many seconds, a poll a second at most.
        "device-authorization-expiration": device_expiration or 600, "device-authorization-interval": 1,
        "session-management-allowed": False,
    }
    if registration == "token":
        params["allow-non-oidc"] = True
        params["auth-type-client-enabled"] = True
        params["allowed-scope"] = params["allowed-scope"] + ["dcr"]
    if one_use:
        # Rotation with reuse detection: each refresh answers a new refresh token and disables the old one; using
        # a spent one is an empty 400 and revokes the whole chain (the reference notes, "Refresh-token rotation").
        params["refresh-token-one-use"] = "always"
    api.call("POST", "/api/mod/plugin/", {"module": "oidc", "name": "oidc", "display_name": "OpenID Connect",
                                          "enabled": True, "order_rank": 0, "parameters": params})
    if registration == "token":
        api.call("POST", "/api/scope/", {"name": "dcr", "display_name": "Register clients", "description": "RFC 7591",
                                          "password_required": False, "password_max_age": 0, "scheme": {}})
    api.call("POST", "/api/user/", {"username": USERNAME, "password": PASSWORD, "name": NAME, "email": EMAIL,
                                    "scope": ["openid", "email", "profile"], "enabled": True})
    api.call("POST", "/api/client/", {"client_id": client_id, "name": client_id, "description": "linkrouter test client",
                                      "confidential": False, "redirect_uri": redirect_uris,
                                      "authorization_type": ["code", "refresh_token"] + (["device_authorization"] if device_expiration > 0 else []),
                                      "scope": ["openid", "email", "profile"], "enabled": True})
    # A second public client with the same redirects: a sandboxed app's own account signs in with it (an app may
    # not declare an account with the person's client, issue 44).
    api.call("POST", "/api/client/", {"client_id": client_id + ".own", "name": client_id + ".own",
                                      "description": "an app's own public client", "confidential": False,
                                      "redirect_uri": redirect_uris,
                                      "authorization_type": ["code", "refresh_token"] + (["device_authorization"] if device_expiration > 0 else []),
                                      "scope": ["openid", "email", "profile"], "enabled": True})
    if registration == "token":
        # The administrator's way to an initial access token (RFC 7591 §3: out of band): client_credentials.
        api.call("POST", "/api/client/", {"client_id": "registrar", "name": "registrar", "description": "mints initial access tokens",
                                          "confidential": True, "client_secret": "registrar-secret",
                                          "token_endpoint_auth_method": ["client_secret_basic"],
                                          "redirect_uri": ["http://localhost:4243"],
                                          "authorization_type": ["client_credentials"], "scope": ["dcr"], "enabled": True})
    if confidential:
        # A second client with a secret (client_secret_basic), for a peer that cannot use a public client:
        # oidc-agent sends Basic auth even with an empty secret, and no nonce (../shared/reference/peer-oidc-agent.md).
        cid, secret = confidential
        api.call("POST", "/api/client/", {"client_id": cid, "name": cid, "description": "a peer's confidential client",
                                          "confidential": True, "client_secret": secret,
                                          "token_endpoint_auth_method": ["client_secret_basic"],
                                          "redirect_uri": ["http://localhost:4242"],
                                          "authorization_type": ["code", "refresh_token"] + (["device_authorization"] if device_expiration > 0 else []),
                                          "scope": ["openid", "email", "profile"], "enabled": True})


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--dir", required=True, help="fresh private work directory (created 0700)")
    p.add_argument("--redirect-uri", action="append", required=True, help="registered exactly; repeatable")
    p.add_argument("--client-id", default="com.example.app")
    p.add_argument("--port", type=int, default=0, help="0 picks a free port (never 4593)")
    p.add_argument("--until", choices=("auto", "stdin", "signal"), default="auto",
                   help="auto: stdin EOF stops it when stdin is a pipe/socket/tty; signals always do")
    p.add_argument("--timeout", type=float, default=20.0, help="seconds allowed for start and bootstrap")
    p.add_argument("--revocation", action="store_true", help="offer the revocation endpoint (RFC 7009)")
    p.add_argument("--par", choices=("off", "allowed", "required"), default="off", help="pushed authorization requests (RFC 9126)")
    p.add_argument("--signing", choices=tuple(SIGNING), default="rsa", help="the ID tokens' key: rsa (RS256), rsa-pss (PS256), ecdsa (ES256), eddsa (EdDSA)")
    p.add_argument("--device", type=int, default=0, metavar="SECONDS",
                   help="offer the device grant (RFC 8628), its codes valid this long (0: off)")
    p.add_argument("--dpop", choices=("off", "allowed", "nonce"), default="off",
                   help="DPoP (RFC 9449): allowed, or allowed with a nonce required at the token endpoint")
    p.add_argument("--access-token-duration", type=int, default=3600, help="seconds an access token lives (a refresh test wants few)")
    p.add_argument("--one-use-refresh", action="store_true",
                   help="refresh tokens rotate one-use with reuse detection (a spent one revokes the chain)")
    p.add_argument("--public-origin", help="origin of a proxy in front (http://127.0.0.1:PORT, no path): "
                   "external_url and iss name it instead of Glewlwyd's own origin")
    p.add_argument("--registration", nargs="?", const="open", choices=("open", "token"),
                   help="client registration (RFC 7591) with management (RFC 7592): open, or only with an initial "
                        "access token of scope dcr (minted by the confidential client registrar:registrar-secret)")
    p.add_argument("--confidential-client", metavar="ID:SECRET",
                   help="also a confidential client (client_secret_basic; code, refresh and, with --device, device grants)")
    a = p.parse_args()
    confidential = None
    if a.confidential_client:
        cid, sep, secret = a.confidential_client.partition(":")
        if not cid or not sep or not secret:
            print("glewlwyd_provider: --confidential-client wants ID:SECRET", file=sys.stderr)
            return 2
        confidential = (cid, secret)
    if a.port == SYSTEM_PORT:
        print("glewlwyd_provider: port 4593 is the system service's; choose another", file=sys.stderr)
        return 2
    public = None
    if a.public_origin:
        u = urllib.parse.urlsplit(a.public_origin)
        if u.scheme not in ("http", "https") or not u.netloc or u.path not in ("", "/") or u.query or u.fragment:
            print(f"glewlwyd_provider: --public-origin must be an origin like http://127.0.0.1:PORT, "
                  f"not {a.public_origin!r}", file=sys.stderr)
            return 2
        public = f"{u.scheme}://{u.netloc}"

    stop = stop_on_signals()
    proc = None
    t0 = time.monotonic()
    try:
        d = os.path.abspath(a.dir)
        port = a.port or free_port()
        conf, key, cert = prepare(d, port, public, a.signing)
        log = open(os.path.join(d, "glewlwyd.log"), "ab")
        proc = subprocess.Popen(["glewlwyd", "-c", conf], stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                preexec_fn=die_with_parent, cwd=d)
        base = f"http://127.0.0.1:{port}"
        wait_until_answering(proc, base, t0 + a.timeout)
        api = Api(base)
        origin = public or base  # what the client sees
        issuer = origin + "/api/oidc"
        bootstrap(api, issuer, a.client_id, a.redirect_uri, key, cert, a.access_token_duration, a.revocation, a.par, a.signing, a.device, a.dpop,
                  a.one_use_refresh, confidential, a.registration)
        disc = Api(base).call("GET", "/api/oidc/.well-known/openid-configuration")  # always direct
        if disc.get("issuer") != issuer:
            raise Failure(f"discovery says issuer {disc.get('issuer')!r}, expected {issuer!r}")
        for k in ("authorization_endpoint", "token_endpoint", "jwks_uri"):
            if not str(disc.get(k, "")).startswith(issuer + "/"):
                raise Failure(f"discovery says {k} {disc.get(k)!r}, expected it under {issuer!r}")
        if stop.is_set():
            raise Failure("stopped by a signal during start")
        info = {
            "issuer": issuer,
            "authorization_endpoint": disc["authorization_endpoint"],
            "token_endpoint": disc["token_endpoint"],
            "userinfo_endpoint": disc.get("userinfo_endpoint"),
            "jwks_uri": disc["jwks_uri"],
            "discovery": issuer + "/.well-known/openid-configuration",
            "username": USERNAME, "password": PASSWORD, "name": NAME, "email": EMAIL,
            "client_id": a.client_id, "app_client_id": a.client_id + ".own", "redirect_uris": a.redirect_uri,
            "scopes": ["openid", "email", "profile"],
            "pid": proc.pid, "fixture_pid": os.getpid(), "port": port,
            "login_page": origin + "/login.html",
            "dir": d, "log": os.path.join(d, "glewlwyd.log"),
            "startup_seconds": round(time.monotonic() - t0, 3),
        }
        if public:
            info["direct_origin"] = base
        if confidential:
            info["confidential_client"] = {"client_id": confidential[0], "client_secret": confidential[1]}
        sys.stdout.write(json.dumps(info) + "\n")
        sys.stdout.flush()

        def running():
            if proc.poll() is not None:
                raise Failure(f"glewlwyd exited unexpectedly with {proc.returncode}; see {info['log']}")
            return True
        run_until_stopped(stop, a.until, going=running)
        return 0
    except Failure as e:
        print(f"glewlwyd_provider: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # unexpected: still a clear line, then the trace
        print(f"glewlwyd_provider: unexpected error: {e!r}", file=sys.stderr)
        raise
    finally:
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


if __name__ == "__main__":
    sys.exit(main())
