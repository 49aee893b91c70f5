#!/usr/bin/python3
"""Signs alice in at a private django-oauth-toolkit (dot_provider.py) with no
browser, as its login form would, and prints where the provider then redirects.

dot_signin.py --provider INFO.json --url AUTHORIZE_URL
dot_signin.py --provider INFO.json --url VERIFICATION_URI --user-code CODE
dot_signin.py --provider INFO.json --url END_SESSION_URL

The third form is a sign-out at the provider (RP-initiated logout, a URL on
/o/logout/): signed in, the confirmation page's form posted back with "allow";
prints where DOT then redirects (post_logout_redirect_uri?state=...).

The second form is the phone of a device login (RFC 8628): signed in, the code
posted at the verification page, then accepted on the confirm page it leads
to (prints "accepted").

GET /accounts/login/ (the csrftoken cookie) -> POST it back with alice's
password and a Referer -> GET the authorize URL with the session cookie ->
302 to redirect_uri?code=...&state=...&iss=... (skip_authorization: no consent
page). That Location goes to stdout, as a browser would hand it to the
callback's handler (test-provider-django-oauth-toolkit.md, "Signing in without
a person").
"""
import argparse, html.parser, http.cookiejar, json, sys, urllib.error, urllib.parse, urllib.request


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--provider", required=True)
    p.add_argument("--url", required=True)
    p.add_argument("--user-code")
    a = p.parse_args()
    info = json.loads(open(a.provider).readline())
    login = info["origin"] + "/accounts/login/"
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), NoRedirect)
    opener.open(login).read()
    csrf = next((c.value for c in jar if c.name == "csrftoken"), None)
    if not csrf:
        print("dot_signin: the login page set no csrftoken cookie", file=sys.stderr)
        return 1
    form = urllib.parse.urlencode({"csrfmiddlewaretoken": csrf, "username": info["username"], "password": info["password"]}).encode()
    try:
        opener.open(urllib.request.Request(login, data=form, headers={"Referer": login}))
        print("dot_signin: the login form did not redirect (wrong password?)", file=sys.stderr)
        return 1
    except urllib.error.HTTPError as e:
        if e.code != 302:
            print(f"dot_signin: signing in answered {e.code}", file=sys.stderr)
            return 1
    if a.user_code:
        return approve_device(a, info, opener, jar)
    if urllib.parse.urlsplit(a.url).path.endswith("/logout/"):
        return confirm_logout(a, opener, jar)
    try:
        opener.open(a.url)
        print("dot_signin: the authorize URL did not redirect", file=sys.stderr)
        return 1
    except urllib.error.HTTPError as e:
        location = e.headers.get("Location", "")
        if e.code != 302 or location.startswith("/accounts/login"):
            print(f"dot_signin: authorize answered {e.code} {location} {e.read()[:300]!r}", file=sys.stderr)
            return 1
        print(location)
        return 0


class FormFields(html.parser.HTMLParser):
    """The named inputs of a page's forms."""
    def __init__(self):
        super().__init__()
        self.fields = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "input" and a.get("name"):
            self.fields[a["name"]] = a.get("value") or ""


def confirm_logout(a, opener, jar):
    """The end-session URL (200, a confirmation form), then its fields posted back with allow."""
    try:
        page = opener.open(a.url).read().decode()
    except urllib.error.HTTPError as e:
        print(f"dot_signin: the end-session URL answered {e.code}: {e.read()[:300]!r}", file=sys.stderr)
        return 1
    form = FormFields()
    form.feed(page)
    fields = dict(form.fields)
    fields["allow"] = "Yes"
    fields["csrfmiddlewaretoken"] = next((c.value for c in jar if c.name == "csrftoken"), "")
    try:
        opener.open(urllib.request.Request(a.url, data=urllib.parse.urlencode(fields).encode(), headers={"Referer": a.url}))
        print("dot_signin: the sign-out confirmation did not redirect", file=sys.stderr)
        return 1
    except urllib.error.HTTPError as e:
        if e.code != 302:
            print(f"dot_signin: the sign-out confirmation answered {e.code}: {e.read()[:300]!r}", file=sys.stderr)
            return 1
        print(e.headers.get("Location", ""))
        return 0


def approve_device(a, info, opener, jar):
    """The code at the verification page, then "accept" at the confirm page it redirects to."""
    def csrf():
        return next((c.value for c in jar if c.name == "csrftoken"), "")
    opener.open(a.url).read()
    location = None
    for action in ("code", "accept"):
        url = a.url if action == "code" else urllib.parse.urljoin(a.url, location)
        if action == "accept":
            opener.open(url).read()
        fields = {"csrfmiddlewaretoken": csrf()}
        fields.update({"user_code": a.user_code} if action == "code" else {"action": "accept"})
        try:
            opener.open(urllib.request.Request(url, data=urllib.parse.urlencode(fields).encode(), headers={"Referer": url}))
            print(f"dot_signin: the {action} step did not redirect", file=sys.stderr)
            return 1
        except urllib.error.HTTPError as e:
            location = e.headers.get("Location", "")
            if e.code != 302:
                print(f"dot_signin: the {action} step answered {e.code}: {e.read()[:300]!r}", file=sys.stderr)
                return 1
    print("accepted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
