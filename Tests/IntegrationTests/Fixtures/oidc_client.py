#!/usr/bin/python3
"""A minimal public OIDC client for proving the fixtures end to end (stdlib only).

oidc_client.py authorize --provider INFO.json --redirect-uri URI [--scope S]
    prints {"url", "state", "nonce", "code_verifier"}: an authorize URL with
    PKCE S256, state and nonce (Glewlwyd requires a nonce: without one it
    redirects with error=invalid_request&error_description=nonce+required).
oidc_client.py token --provider INFO.json --redirect-uri URI --code C --code-verifier V
    exchanges the code; prints {"status", "scope", "id_token_claims", ...}.

INFO.json is the line glewlwyd_provider.py printed (or "-" for stdin).
"""
import argparse, base64, hashlib, json, secrets, sys, urllib.error, urllib.parse, urllib.request


def load(path):
    return json.loads(sys.stdin.readline() if path == "-" else open(path).readline())


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    au = sub.add_parser("authorize")
    tk = sub.add_parser("token")
    for s in (au, tk):
        s.add_argument("--provider", required=True)
        s.add_argument("--redirect-uri", required=True)
    au.add_argument("--scope", default="openid")
    tk.add_argument("--code", required=True)
    tk.add_argument("--code-verifier", required=True)
    a = p.parse_args()
    info = load(a.provider)
    if a.cmd == "authorize":
        verifier = "-"
        while verifier.startswith("-"):  # a leading "-" reads as an option on a command line
            verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        state, nonce = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
        q = urllib.parse.urlencode({"response_type": "code", "client_id": info["client_id"], "redirect_uri": a.redirect_uri,
                                    "scope": a.scope, "state": state, "nonce": nonce,
                                    "code_challenge": challenge, "code_challenge_method": "S256"})
        print(json.dumps({"url": info["authorization_endpoint"] + "?" + q, "state": state, "nonce": nonce,
                          "code_verifier": verifier}))
        return 0
    data = urllib.parse.urlencode({"grant_type": "authorization_code", "code": a.code, "redirect_uri": a.redirect_uri,
                                   "client_id": info["client_id"], "code_verifier": a.code_verifier}).encode()
    try:
        with urllib.request.urlopen(urllib.request.Request(info["token_endpoint"], data=data), timeout=10) as r:
            status, body = r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        status, body = e.code, json.loads(e.read() or b"{}")
    out = {"status": status, "body_keys": sorted(body)}
    if "id_token" in body:
        part = body["id_token"].split(".")[1]
        out["id_token_claims"] = json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
        out["scope"] = body.get("scope")
    else:
        out["error"] = body
    print(json.dumps(out))
    return 0 if status == 200 else 1


if __name__ == "__main__":
    sys.exit(main())
