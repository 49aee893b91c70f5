"""A private django-oauth-toolkit 3.4.1 OpenID provider for one test: the
second provider, from another code base than Glewlwyd
(../shared/reference/test-provider-django-oauth-toolkit.md).

Run by the virtual environment scripts/setup --test makes:
  .build/test-tools/dot-venv/bin/python dot_provider.py --dir DIR
      [--redirect-uri URI ...] [--access-token-seconds N]

Writes its settings, URLs, a one-line login template and an RSA key in DIR,
migrates a SQLite database there, makes alice and a public client
`com.example.app` (code flow, PKCE S256 required, refresh tokens rotated with
reuse detection, RFC 9207 `iss`), says in its ID tokens how alice signed in
(`acr`: urn:example:mfa when she is in the group "mfa", which a test adds her
to as a person enrolling a second factor would; urn:example:password
otherwise), serves on 127.0.0.1:PORT in this process,
prints one JSON line with what a test needs, and runs until SIGTERM (or
stdin's EOF when stdin is a pipe).
"""
import argparse, json, os, socket, subprocess, sys, threading, time
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from fixture_process import run_until_stopped, stop_on_signals

USERNAME, PASSWORD, EMAIL = "alice", "alice-Passw0rd", "alice@example.com"
CLIENT_ID = "com.example.app"
# One grant type per application: the device grant's client is another, without dots (its confirm page's URL pattern).
DEVICE_CLIENT_ID = "example-cli"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# How this provider says a person signed in (OpenID Connect Core §2 `acr`): its configuration, as a deployment's
# would be; the ID token's other claims are DOT's own.
VALIDATOR = """from oauth2_provider.oauth2_validators import OAuth2Validator


class AuthenticationClassValidator(OAuth2Validator):
    oidc_claim_scope = dict(OAuth2Validator.oidc_claim_scope, acr="openid")

    def get_additional_claims(self, request):
        mfa = request.user.groups.filter(name="mfa").exists()
        return {"acr": "urn:example:mfa" if mfa else "urn:example:password"}
"""


def write_site(d, port, access_seconds):
    with open(os.path.join(d, "dotop_urls.py"), "w") as f:
        f.write(
            "from django.contrib.auth import views as auth_views\n"
            "from django.urls import include, path\n"
            "urlpatterns = [path('accounts/login/', auth_views.LoginView.as_view(template_name='login.html')),\n"
            "               path('o/', include('oauth2_provider.urls', namespace='oauth2_provider'))]\n")
    os.makedirs(os.path.join(d, "templates"), exist_ok=True)
    with open(os.path.join(d, "templates", "login.html"), "w") as f:
        f.write('<form method="post">{% csrf_token %}{{ form.as_p }}<button type="submit">Sign in</button></form>\n')
    with open(os.path.join(d, "dotop_validator.py"), "w") as f:
        f.write(VALIDATOR)
    key = os.path.join(d, "oidc.key")
    if not os.path.exists(key):
        subprocess.run(["openssl", "genrsa", "-out", key, "2048"], check=True, capture_output=True)
    settings = {
        "SECRET_KEY": "test-only", "DEBUG": False, "USE_TZ": True,
        "INSTALLED_APPS": ["django.contrib.auth", "django.contrib.contenttypes", "django.contrib.sessions", "oauth2_provider"],
        "MIDDLEWARE": ["django.contrib.sessions.middleware.SessionMiddleware", "django.middleware.csrf.CsrfViewMiddleware",
                       "django.contrib.auth.middleware.AuthenticationMiddleware"],
        "ROOT_URLCONF": "dotop_urls", "LOGIN_URL": "/accounts/login/", "ALLOWED_HOSTS": ["127.0.0.1"],
        "DATABASES": {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.path.join(d, "db.sqlite3")}},
        "TEMPLATES": [{"BACKEND": "django.template.backends.django.DjangoTemplates", "APP_DIRS": True,
                       "DIRS": [os.path.join(d, "templates")],
                       "OPTIONS": {"context_processors": ["django.template.context_processors.request",
                                                          "django.contrib.auth.context_processors.auth"]}}],
        "OAUTH2_PROVIDER": {
            "OIDC_ENABLED": True, "OIDC_RSA_PRIVATE_KEY": open(key).read(),
            "OIDC_ISS_ENDPOINT": "http://127.0.0.1:%d/o" % port,
            "SCOPES": {"openid": "OpenID", "profile": "Profile", "email": "E-mail"},
            "PKCE_REQUIRED": True, "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
            "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
            "ALLOWED_REDIRECT_URI_SCHEMES": ["http", "https", "com.example.app"],
            "ROTATE_REFRESH_TOKEN": True, "REFRESH_TOKEN_REUSE_PROTECTION": True,
            "ACCESS_TOKEN_EXPIRE_SECONDS": access_seconds,
            "OAUTH_DEVICE_VERIFICATION_URI": "http://127.0.0.1:%d/o/device/" % port, "DEVICE_FLOW_INTERVAL": 1,
            # RP-initiated logout: a confirmation page, then back to a registered post_logout_redirect_uri.
            "OIDC_RP_INITIATED_LOGOUT_ENABLED": True,
            "OAUTH2_VALIDATOR_CLASS": "dotop_validator.AuthenticationClassValidator",
        },
    }
    with open(os.path.join(d, "dotop_settings.py"), "w") as f:
        for k, v in settings.items():
            f.write("%s = %r\n" % (k, v))


class ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class QuietHandler(WSGIRequestHandler):
    def log_message(self, fmt, *args):
        sys.stderr.write("dot: " + (fmt % args) + "\n")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dir", required=True)
    p.add_argument("--redirect-uri", action="append", default=[])
    p.add_argument("--access-token-seconds", type=int, default=36000)
    p.add_argument("--until", choices=("auto", "stdin", "signal"), default="auto")
    a = p.parse_args()
    stop = stop_on_signals()
    t0 = time.monotonic()
    d = os.path.abspath(a.dir)
    os.makedirs(d, exist_ok=True)
    port = free_port()
    write_site(d, port, a.access_token_seconds)
    sys.path.insert(0, d)
    os.environ["DJANGO_SETTINGS_MODULE"] = "dotop_settings"
    import django
    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.core.wsgi import get_wsgi_application
    from oauth2_provider.models import Application
    call_command("migrate", verbosity=0)
    user = User.objects.create_user(USERNAME, EMAIL, PASSWORD)
    from django.contrib.auth.models import Group
    Group.objects.create(name="mfa")
    Application.objects.create(
        client_id=CLIENT_ID, user=user, client_type=Application.CLIENT_PUBLIC,
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        redirect_uris=" ".join(a.redirect_uri or ["com.example.app:/callback"]),
        # The same URIs take the browser back after a sign-out (an account's redirect serves both).
        post_logout_redirect_uris=" ".join(a.redirect_uri or ["com.example.app:/callback"]),
        algorithm=Application.RS256_ALGORITHM, skip_authorization=True)
    Application.objects.create(
        client_id=DEVICE_CLIENT_ID, user=user, client_type=Application.CLIENT_PUBLIC,
        authorization_grant_type=Application.GRANT_DEVICE_CODE, algorithm=Application.RS256_ALGORITHM)
    server = make_server("127.0.0.1", port, get_wsgi_application(), server_class=ThreadingServer, handler_class=QuietHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    issuer = "http://127.0.0.1:%d/o" % port
    info = {
        "kind": "django-oauth-toolkit", "issuer": issuer, "origin": "http://127.0.0.1:%d" % port,
        "authorization_endpoint": issuer + "/authorize/", "token_endpoint": issuer + "/token/",
        "discovery": issuer + "/.well-known/openid-configuration",
        "username": USERNAME, "password": PASSWORD, "client_id": CLIENT_ID, "redirect_uris": a.redirect_uri,
        "device_client_id": DEVICE_CLIENT_ID, "device_authorization_endpoint": issuer + "/device-authorization/",
        "revocation_endpoint": issuer + "/revoke_token/", "userinfo_endpoint": issuer + "/userinfo/",
        "port": port, "pid": os.getpid(), "db": os.path.join(d, "db.sqlite3"),
        "startup_seconds": round(time.monotonic() - t0, 3),
    }
    sys.stdout.write(json.dumps(info) + "\n")
    sys.stdout.flush()
    run_until_stopped(stop, a.until)
    server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
