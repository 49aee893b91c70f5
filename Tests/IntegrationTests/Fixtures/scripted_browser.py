"""What the scripted sign-ins at the test providers share (glewlwyd_signin.py,
dot_signin.py): their command line, and a browser without a screen that keeps
cookies, follows no redirect (a redirect's Location is what a sign-in is
after) and returns every answer rather than raising it.
"""
import argparse, http.cookiejar, json, urllib.error, urllib.parse, urllib.request


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *a, **k):
        return None


def arguments(*extra):
    """--provider INFO.json, --url and --user-code, and `extra` ((name, keywords) pairs); the
    parsed arguments and the provider's info line."""
    p = argparse.ArgumentParser()
    p.add_argument("--provider", required=True)
    p.add_argument("--url", required=True)
    p.add_argument("--user-code", help="approve a device login with this code at --url, the verification page")
    for name, keywords in extra:
        p.add_argument(name, **keywords)
    a = p.parse_args()
    return a, json.loads(open(a.provider).readline())


class Browser:
    def __init__(self):
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), NoRedirect)

    def cookie(self, name):
        return next((c.value for c in self.jar if c.name == name), None)

    def go(self, method, url, json_body=None, form=None, headers=None):
        """(status, headers, text) of one request; `json_body` or `form` is its body."""
        headers = dict(headers or {})
        data = None
        if json_body is not None:
            data, headers["Content-Type"] = json.dumps(json_body).encode(), "application/json"
        elif form is not None:
            data = urllib.parse.urlencode(form).encode()
        req = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with self.opener.open(req, timeout=10) as r:
                return r.status, r.headers, r.read().decode(errors="replace")
        except urllib.error.HTTPError as e:
            return e.code, e.headers, e.read().decode(errors="replace")
