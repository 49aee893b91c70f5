#!/usr/bin/python3
"""Signs in at Glewlwyd without a browser, through its REST API, and reports the redirect.

scripted_login.py --provider INFO.json --url AUTHORIZE_URL [--no-follow]
                  [--username U --password P] [--timeout 10]

INFO.json is the line glewlwyd_provider.py printed ("-" = stdin). All requests
go to the authorize URL's origin (Glewlwyd itself or tamper_provider.py in
front of it), with one cookie jar:

  1. POST ORIGIN/api/auth/            {"username", "password"}   (session cookie)
  2. PUT  ORIGIN/api/auth/grant/CLIENT {"scope": the URL's scopes, space-separated}
  3. GET  AUTHORIZE_URL&g_continue    not following the 302

(`/api` is the authorize path minus its last two segments.) Prints ONE JSON
line: {"location": the 302's Location, "code", "state", "iss", "seconds", ...}.
If the Location is an http(s) URL (a loopback redirect URI), it is then
requested once, as a browser would, so that a listener there gets the code
("delivered": {"status", "seconds"}); --no-follow skips that. A custom-scheme
Location is only reported. Exit 0: a code; 3: the Location carries error=
("error", "error_description" in the JSON); 1: failure (message on stderr).
"""
import argparse, http.cookiejar, json, sys, time, urllib.error, urllib.parse, urllib.request


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None  # the 3xx comes back as an HTTPError with its headers


class Failure(Exception):
    pass


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--provider", required=True, help="the JSON line glewlwyd_provider.py printed, or -")
    p.add_argument("--url", required=True, help="the authorize URL (PKCE, state, nonce already in it)")
    p.add_argument("--no-follow", action="store_true", help="do not request an http(s) Location")
    p.add_argument("--username")
    p.add_argument("--password")
    p.add_argument("--timeout", type=float, default=10.0)
    a = p.parse_args()
    t0 = time.monotonic()
    try:
        info = json.loads(sys.stdin.readline() if a.provider == "-" else open(a.provider).readline())
        u = urllib.parse.urlsplit(a.url)
        if u.scheme not in ("http", "https") or not u.netloc:
            raise Failure(f"--url is not an http(s) URL: {a.url!r}")
        origin = f"{u.scheme}://{u.netloc}"
        prefix = u.path.rsplit("/", 2)[0]  # /api/oidc/auth -> /api
        query = urllib.parse.parse_qs(u.query)
        client_id = query.get("client_id", [info["client_id"]])[0]
        scope = " ".join(query.get("scope", ["openid"])[0].split())
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), NoRedirect)

        def call(method, url, body=None):
            data = json.dumps(body).encode() if body is not None else None
            req = urllib.request.Request(url, data=data, method=method,
                                         headers={"Content-Type": "application/json"} if data else {})
            try:
                with opener.open(req, timeout=a.timeout) as r:
                    return r.status, r.headers, r.read()
            except urllib.error.HTTPError as e:
                return e.code, e.headers, e.read()

        user = a.username or info["username"]
        status, _, body = call("POST", origin + prefix + "/auth/",
                               {"username": user, "password": a.password or info["password"]})
        if status != 200:
            raise Failure(f"sign-in as {user} refused: HTTP {status} {body[:200]!r}")
        t_auth = time.monotonic()
        status, _, body = call("PUT", origin + prefix + "/auth/grant/" + urllib.parse.quote(client_id, safe=""),
                               {"scope": scope})
        if status != 200:
            raise Failure(f"consent for {client_id} scope {scope!r} refused: HTTP {status} {body[:200]!r}")
        t_grant = time.monotonic()
        status, headers, body = call("GET", a.url + ("&" if u.query else "?") + "g_continue")
        location = headers.get("Location") if headers else None
        if status not in (301, 302, 303, 307, 308) or not location:
            raise Failure(f"authorize with g_continue answered HTTP {status}, not a redirect: {body[:300]!r}")
        t_redirect = time.monotonic()
        lq = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)
        lq.update({k: v for k, v in urllib.parse.parse_qs(urllib.parse.urlsplit(location).fragment).items()
                   if k not in lq})
        one = lambda k: lq.get(k, [None])[0]
        redirect_uri = query.get("redirect_uri", [None])[0]
        if redirect_uri and not location.startswith(redirect_uri):
            raise Failure(f"the redirect does not go to the redirect_uri {redirect_uri!r}: {location!r}")
        out = {"location": location, "code": one("code"), "state": one("state"), "iss": one("iss"),
               "seconds": None,
               "timings": {"signed_in": round(t_auth - t0, 3), "granted": round(t_grant - t0, 3),
                           "redirect": round(t_redirect - t0, 3)}}
        if one("error"):
            out["error"], out["error_description"] = one("error"), one("error_description")
        lu = urllib.parse.urlsplit(location)
        if lu.scheme in ("http", "https") and not a.no_follow:
            t1 = time.monotonic()
            try:
                with urllib.request.build_opener(NoRedirect).open(location, timeout=a.timeout) as r:
                    dstatus = r.status
                    r.read()
            except urllib.error.HTTPError as e:
                dstatus = e.code
            except (urllib.error.URLError, OSError) as e:
                raise Failure(f"could not deliver the redirect to {location!r}: {e}")
            out["delivered"] = {"status": dstatus, "seconds": round(time.monotonic() - t1, 3)}
        out["seconds"] = round(time.monotonic() - t0, 3)
        print(json.dumps(out), flush=True)
        if one("error"):
            return 3
        if not one("code"):
            raise Failure(f"the redirect carries neither code nor error: {location!r}")
        return 0
    except Failure as e:
        print(f"scripted_login: {e}", file=sys.stderr)
        return 1
    except (urllib.error.URLError, OSError, ValueError, KeyError) as e:
        print(f"scripted_login: {e!r}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
