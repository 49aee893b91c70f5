#!/usr/bin/python3
"""Signs alice in at a private django-oauth-toolkit (dot_provider.py) with no
browser, as its login form would, and prints where the provider then redirects.

dot_signin.py --provider INFO.json --url AUTHORIZE_URL
dot_signin.py --provider INFO.json --url VERIFICATION_URI --user-code CODE
dot_signin.py --provider INFO.json --url END_SESSION_URL

The third form is a sign-out at the provider (RP-initiated logout, a URL on
/o/logout/): signed in, the confirmation page's form posted back with "allow";
prints where DOT then redirects (post_logout_redirect_uri?state=...). The URL
may be linkrouter's sign-out page instead (http://127.0.0.1:PORT/linkrouter/
sign-out/...): it is fetched as a browser would, and its form followed.

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
import html.parser, sys, urllib.parse

from scripted_browser import Browser, arguments


def redirected(answer, what):
    """The Location of a 302 `answer`, or None (and why on stderr)."""
    status, headers, text = answer
    if status != 302:
        print(f"dot_signin: {what} answered {status}, not a redirect: {text[:300]!r}", file=sys.stderr)
        return None
    return headers.get("Location", "")


def post_form(browser, url, fields):
    """A form posted back as the page's own would be: with the CSRF cookie's token and a Referer (Django demands it)."""
    fields = dict(fields, csrfmiddlewaretoken=browser.cookie("csrftoken") or "")
    return browser.go("POST", url, form=fields, headers={"Referer": url})


def main():
    a, info = arguments()
    login = info["origin"] + "/accounts/login/"
    browser = Browser()
    browser.go("GET", login)
    if not browser.cookie("csrftoken"):
        print("dot_signin: the login page set no csrftoken cookie", file=sys.stderr)
        return 1
    if redirected(post_form(browser, login, {"username": info["username"], "password": info["password"]}), "signing in (wrong password?)") is None:
        return 1
    if a.user_code:
        return approve_device(a, browser)
    if urllib.parse.urlsplit(a.url).path.startswith("/linkrouter/sign-out/"):
        a.url = followed_page(a.url, browser)
        if a.url is None:
            return 1
    if urllib.parse.urlsplit(a.url).path.endswith("/logout/"):
        return confirm_logout(a, browser)
    location = redirected(browser.go("GET", a.url), "the authorize URL")
    if location is None or location.startswith("/accounts/login"):
        print(f"dot_signin: authorize sent the browser to {location!r}, not to the redirect URI", file=sys.stderr)
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


class PageForm(FormFields):
    """A page's form: its method and action besides its named inputs."""
    def __init__(self):
        super().__init__()
        self.method, self.action = "get", None

    def handle_starttag(self, tag, attrs):
        super().handle_starttag(tag, attrs)
        if tag == "form":
            a = dict(attrs)
            self.method, self.action = (a.get("method") or "get").lower(), a.get("action")


def followed_page(url, browser):
    """linkrouter's sign-out page, as a browser follows it: its form's GET, as the URL to go on with."""
    status, _, page = browser.go("GET", url)
    if status != 200:
        print(f"dot_signin: the sign-out page answered {status}: {page[:300]!r}", file=sys.stderr)
        return None
    form = PageForm()
    form.feed(page)
    if form.method != "get" or not form.action:
        print(f"dot_signin: the sign-out page's form is {form.method} to {form.action!r}", file=sys.stderr)
        return None
    return form.action + ("&" if "?" in form.action else "?") + urllib.parse.urlencode(form.fields)


def confirm_logout(a, browser):
    """The end-session URL (200, a confirmation form), then its fields posted back with allow."""
    status, _, page = browser.go("GET", a.url)
    if status != 200:
        print(f"dot_signin: the end-session URL answered {status}: {page[:300]!r}", file=sys.stderr)
        return 1
    form = FormFields()
    form.feed(page)
    location = redirected(post_form(browser, a.url, dict(form.fields, allow="Yes")), "the sign-out confirmation")
    if location is None:
        return 1
    print(location)
    return 0


def approve_device(a, browser):
    """The code at the verification page, then "accept" at the confirm page it redirects to."""
    browser.go("GET", a.url)
    location = redirected(post_form(browser, a.url, {"user_code": a.user_code}), "the code step")
    if location is None:
        return 1
    confirm = urllib.parse.urljoin(a.url, location)
    browser.go("GET", confirm)
    if redirected(post_form(browser, confirm, {"action": "accept"}), "the accept step") is None:
        return 1
    print("accepted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
