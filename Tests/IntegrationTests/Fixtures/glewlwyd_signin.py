#!/usr/bin/python3
"""Signs alice in at a private Glewlwyd (glewlwyd_provider.py) with no browser,
as its login page would, and prints where the provider then redirects.

glewlwyd_signin.py --provider INFO.json --url AUTHORIZE_URL [--scope openid]
glewlwyd_signin.py --provider INFO.json --url VERIFICATION_URI --user-code CODE

The second form is the phone of a device login (RFC 8628): alice signs in and
consents, then enters the user code at the verification page
(GET .../device?code=CODE&g_continue -> 302 to login.html?...prompt=deviceComplete);
it prints that prompt.

The login page's own REST calls, with a cookie jar (test-provider-glewlwyd.md,
"Signing in without a person"): GET the authorize URL (302 to login.html with
callback_url) -> POST /api/auth/ (alice's password) -> PUT /api/auth/grant/<client>
(consent) -> GET callback_url&g_continue -> 302 to redirect_uri?code=...&state=...
That Location goes to stdout, as a browser would hand it to the callback's handler.
"""
import sys, urllib.parse

from scripted_browser import Browser, arguments


def main():
    a, info = arguments(("--scope", {"default": "openid"}),
                        ("--client-id", {"help": "the client alice consents to (default: the provider's public client)"}))
    origin = info.get("direct_origin") or info["issuer"].rsplit("/api/", 1)[0]
    browser = Browser()

    def go(method, url, body=None):
        return browser.go(method, url, json_body=body)

    if a.user_code:
        return approve_device(a, info, origin, go)
    status, headers, _ = go("GET", a.url)
    location = headers.get("Location", "")
    if status != 302:
        sys.exit(f"glewlwyd_signin: the authorize URL answered {status}, not 302 to the login page")
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)
    callback = query.get("callback_url", [None])[0]
    if not callback:
        print(location)  # already signed in: straight to the redirect URI
        return 0
    sign_in(a, info, origin, go)
    status, headers, text = go("GET", callback + "&g_continue")
    if status != 302:
        sys.exit(f"glewlwyd_signin: the authorize step answered {status}: {text[:200]}")
    print(headers["Location"])
    return 0


def sign_in(a, info, origin, go):
    """alice's password at the login page's REST call, then her consent for the client."""
    status, _, text = go("POST", origin + "/api/auth/", {"username": info["username"], "password": info["password"]})
    if status != 200:
        sys.exit(f"glewlwyd_signin: POST /api/auth/ answered {status}: {text[:200]}")
    # The client the authorize URL names (a client registered by the test's subject has an id only it knows), else
    # the fixture's.
    named = urllib.parse.parse_qs(urllib.parse.urlsplit(a.url).query).get("client_id", [None])[0] if a.url else None
    client = a.client_id or named or info["client_id"]
    status, _, text = go("PUT", origin + "/api/auth/grant/" + urllib.parse.quote(client, safe=""), {"scope": a.scope})
    if status != 200:
        sys.exit(f"glewlwyd_signin: the consent answered {status}: {text[:200]}")


def approve_device(a, info, origin, go):
    """The phone: signed in, consented, the code entered at the verification page."""
    sign_in(a, info, origin, go)
    sep = "&" if "?" in a.url else "?"
    status, headers, text = go("GET", a.url + sep + "code=" + urllib.parse.quote(a.user_code, safe="") + "&g_continue")
    location = headers.get("Location", "") if headers else ""
    prompt = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query).get("prompt", [""])[0]
    if status != 302 or prompt != "deviceComplete":
        sys.exit(f"glewlwyd_signin: the verification page answered {status} {location[:200]} {text[:200]}")
    print(prompt)
    return 0


if __name__ == "__main__":
    sys.exit(main())
