#!/usr/bin/env python3
"""A stand-in web browser with its own cookie jar.

browser.py --name N --jar JAR --log LOG --cafile CA [ignored args…] URL

Fetches URL keeping cookies in JAR, follows http(s) redirects itself, and,
like a real browser, hands a redirect to any other scheme (a custom-scheme
callback) to `xdg-open`. Appends what it did to LOG, one JSON line a step.
"""
import argparse, http.cookiejar, json, ssl, subprocess, sys, urllib.error, urllib.request

from scripted_browser import NoRedirect


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--name", required=True)
    p.add_argument("--jar", required=True)
    p.add_argument("--log", required=True)
    p.add_argument("--cafile", required=True)
    p.add_argument("rest", nargs="+")
    a = p.parse_args()
    url = a.rest[-1]
    log = open(a.log, "a")
    step = lambda **kw: (log.write(json.dumps(dict(browser=a.name, **kw)) + "\n"), log.flush())
    jar = http.cookiejar.MozillaCookieJar(a.jar)
    try:
        jar.load(ignore_discard=True, ignore_expires=True)
    except FileNotFoundError:
        pass
    ctx = ssl.create_default_context(cafile=a.cafile)
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), urllib.request.HTTPSHandler(context=ctx), NoRedirect())
    opener.addheaders = [("User-Agent", "standin/" + a.name)]
    for _ in range(10):
        if not url.startswith(("http://", "https://")):
            step(action="xdg-open", url=url)
            r = subprocess.run(["xdg-open", url])
            step(action="xdg-open-done", status=r.returncode)
            break
        try:
            resp = opener.open(url, timeout=10)
            status, location = resp.status, None
        except urllib.error.HTTPError as e:
            status, location = e.code, e.headers.get("Location")
        step(action="fetch", url=url, status=status)
        jar.save(ignore_discard=True, ignore_expires=True)
        if status in (301, 302, 303, 307, 308) and location:
            url = location
            continue
        break


if __name__ == "__main__":
    main()
