#!/bin/bash
# usage: tamper.sh RUNDIR   -- Glewlwyd behind tamper_provider.py: every mode's defect and nothing else,
# refresh grant, stall-token, proxy start-up time and overhead. Prints "ok"/"FAIL" lines; exit 1 on any FAIL.
set -u
F=$(cd "$(dirname "$0")/.." && pwd); R=$1
rm -rf $R; mkdir -p $R; mkfifo $R/prov.in $R/tamper.in
PY=/usr/bin/python3; export PYTHONDONTWRITEBYTECODE=1
PX=$($PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
wait_line() { local i; for i in $(seq 400); do [ -s $1 ] && return 0; sleep 0.05; done; return 1; }
$F/glewlwyd_provider.py --dir $R/prov --redirect-uri com.example.app:/callback \
    --public-origin http://127.0.0.1:$PX <$R/prov.in >$R/prov.json 2>$R/prov.err &
exec 7>$R/prov.in
wait_line $R/prov.json || { echo "provider failed: $(cat $R/prov.err)"; exit 1; }
D=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["direct_origin"])' $R/prov.json)
$F/tamper_provider.py --upstream $D --port $PX --dir $R/tamper <$R/tamper.in >$R/tamper.json 2>$R/tamper.err &
exec 8>$R/tamper.in
wait_line $R/tamper.json || { echo "proxy failed: $(cat $R/tamper.err)"; exit 1; }
echo "provider: $(cat $R/prov.json)"; echo "proxy: $(cat $R/tamper.json)"

$PY - $F $R <<'EOF'
import base64, hashlib, hmac, http.client, json, statistics, subprocess, sys, threading, time, urllib.error, urllib.parse, urllib.request
F, R = sys.argv[1:3]
prov, tp = json.load(open(R + "/prov.json")), json.load(open(R + "/tamper.json"))
CB, CID, ISS = "com.example.app:/callback", prov["client_id"], prov["issuer"]
fails = []
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok: fails.append(what)
b64d = lambda s: base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))
jpart = lambda s: json.loads(b64d(s))
def set_mode(m):
    with open(tp["mode_file"], "w") as f: f.write(m + "\n")
def http(url, form=None, timeout=10):
    data = urllib.parse.urlencode(form).encode() if form else None
    t = time.monotonic()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data), timeout=timeout) as r:
            return r.status, r.headers, r.read(), time.monotonic() - t
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read(), time.monotonic() - t
def log(): return [json.loads(l) for l in open(tp["requests_log"])]
def login():
    a = json.loads(subprocess.check_output([F + "/oidc_client.py", "authorize", "--provider", R + "/prov.json",
                                            "--redirect-uri", CB, "--scope", "openid email profile"]))
    l = json.loads(subprocess.check_output([F + "/scripted_login.py", "--provider", R + "/prov.json", "--url", a["url"]]))
    return a, l
def exchange(a, l, timeout=10):
    return http(prov["token_endpoint"], {"grant_type": "authorization_code", "code": l["code"], "redirect_uri": CB,
                                         "client_id": CID, "code_verifier": a["code_verifier"]}, timeout)
def jwks(): return json.loads(http(prov["jwks_uri"])[2])["keys"]
def rs256_ok(jwk, signing_input, sig):  # RSASSA-PKCS1-v1_5 with SHA-256, by hand
    n, e = int.from_bytes(b64d(jwk["n"]), "big"), int.from_bytes(b64d(jwk["e"]), "big")
    k = (n.bit_length() + 7) // 8
    if len(sig) != k: return False
    di = bytes.fromhex("3031300d060960864801650304020105000420") + hashlib.sha256(signing_input).digest()
    return pow(int.from_bytes(sig, "big"), e, n).to_bytes(k, "big") == b"\x00\x01" + b"\xff" * (k - 3 - len(di)) + b"\x00" + di
def verify(tok, nonce, cached):
    """A model client: RS256 only, kid from the cached JWKS, refetched once if unknown; iss, aud/azp, nonce, exp, iat."""
    h, p, s = tok.split(".")
    head, claims, d, key, fetches = jpart(h), jpart(p), [], None, 0
    if head.get("alg") != "RS256": d.append("alg")
    else:
        key = next((k for k in cached if k.get("kid") == head.get("kid")), None)
        if key is None:
            fetches += 1; key = next((k for k in jwks() if k.get("kid") == head.get("kid")), None)
        if key is None: d.append("kid")
        elif not rs256_ok(key, f"{h}.{p}".encode(), b64d(s)): d.append("signature")
    now = time.time()
    if claims.get("iss") != ISS: d.append("iss")
    aud = claims.get("aud"); aud = aud if isinstance(aud, list) else [aud]
    if CID not in aud or claims.get("azp", CID) != CID: d.append("aud")
    if claims.get("nonce") != nonce: d.append("nonce")
    if not claims.get("exp", 0) > now - 60: d.append("exp")
    if not claims.get("iat", 0) <= now + 60: d.append("iat")
    return d, head, claims, key, fetches

disc_direct = json.loads(http(prov["direct_origin"] + "/api/oidc/.well-known/openid-configuration")[2])
g_keys = json.loads(http(prov["direct_origin"] + "/api/oidc/jwks")[2])["keys"]
set_mode("honest")
disc = json.loads(http(prov["discovery"])[2])
check(disc == disc_direct and disc["issuer"] == ISS == tp["origin"] + "/api/oidc"
      and all(disc[k].startswith(tp["origin"] + "/") for k in ("authorization_endpoint", "token_endpoint", "jwks_uri")),
      f"honest discovery through the proxy = Glewlwyd's, issuer {disc['issuer']}")
keys = jwks()
proxy_jwk = next(k for k in keys if k["kid"] == tp["key_id"])
check(keys[:-1] == g_keys and keys[-1] == proxy_jwk and set(proxy_jwk) == {"kty", "n", "e", "kid", "alg", "use"},
      f"JWKS = Glewlwyd's {len(g_keys)} key(s) + the proxy's JWK {sorted(proxy_jwk)}")

# honest, with oidc_client.py's own exchange
a, l = login()
check(l["iss"] == ISS and l["state"] == a["state"] and l["location"].startswith(CB + "?"),
      f"scripted login through the proxy: 302 to {CB}, iss {l['iss']}, state ok, {l['seconds']} s")
out = json.loads(subprocess.run([F + "/oidc_client.py", "token", "--provider", R + "/prov.json", "--redirect-uri", CB,
                                 "--code=" + l["code"], "--code-verifier=" + a["code_verifier"]], stdout=subprocess.PIPE).stdout)
c = out.get("id_token_claims", {})
check(out["status"] == 200 and c.get("iss") == ISS and c.get("aud") == CID and c.get("nonce") == a["nonce"],
      f"oidc_client.py token via proxy: 200, iss/aud/nonce right, claims {sorted(c)}")

EXPECT = {  # mode: (defects of the model client, claims changed, header members changed)
    "honest": ([], [], []), "flip-signature": (["signature"], [], []), "swap-aud": (["aud"], ["aud"], ["kid"]),
    "change-nonce": (["nonce"], ["nonce"], ["kid"]), "expired": (["exp"], ["exp", "iat"], ["kid"]),
    "wrong-iss": (["iss"], ["iss"], ["kid"]), "future-iat": (["iat"], ["exp", "iat"], ["kid"]),
    "resign-honest": ([], [], ["kid"]), "alg-none": (["alg"], [], ["alg", "kid"]), "hs256": (["alg"], [], ["alg", "kid"]),
    "unknown-kid": (["kid"], [], ["kid"]), "rotate-kid": ([], [], ["kid"])}
for mode, (want, claims_changed, header_changed) in EXPECT.items():
    set_mode(mode)
    cached = jwks()  # the client's JWKS as fetched before the exchange (1st fetch after the mode was set)
    a, l = login()
    st, _, body, secs = exchange(a, l)
    resp = json.loads(body)
    entry = [e for e in log() if e["path"].endswith("/token")][-1]
    d, head, claims, key, fetches = verify(resp["id_token"], a["nonce"], cached)
    diff = entry.get("id_token_diff", {"header": [], "claims": [], "signature_changed": False})
    ok = (st == 200 and d == want and diff["claims"] == claims_changed and diff["header"] == header_changed
          and set(resp) == {"token_type", "access_token", "refresh_token", "iat", "expires_in", "scope", "id_token"})
    extra = ""
    if mode in ("honest", "flip-signature"):
        ok = ok and head.get("kid") == g_keys[0]["kid"] and (mode == "flip-signature") == diff["signature_changed"]
    if header_changed == ["kid"] and mode != "unknown-kid":  # re-signed: valid, and with the proxy's key
        ok = ok and key == proxy_jwk and "signature" not in d
    if mode == "hs256":
        h, p, s = resp["id_token"].split(".")
        ok = ok and hmac.compare_digest(hmac.new(b64d(proxy_jwk["n"]), f"{h}.{p}".encode(), hashlib.sha256).digest(), b64d(s))
        extra = ", HMAC valid with the modulus bytes"
    if mode == "alg-none":
        ok = ok and resp["id_token"].endswith(".") and head == {"alg": "none", "typ": "JWT"}
    if mode in ("unknown-kid", "rotate-kid"):
        jf = [e for e in log() if e["path"].endswith("/jwks")][-2:]
        ok = ok and fetches == 1 and [e["jwks_fetch"] for e in jf] == [1, 2]
        extra = f", client refetched JWKS once; proxy log: {[(e['jwks_fetch'], e['tampered'][:20]) for e in jf]}"
    if mode == "unknown-kid": ok = ok and head["kid"] == "rotated-key"
    check(ok, f"{mode:15} -> defects {d}, proxy diff claims {diff['claims']} header {diff['header']}, "
              f"signature changed {diff['signature_changed']}{extra} ({entry['ms']} ms at proxy)")

# the proxy's own signature, cross-checked with openssl and the proxy's public PEM
set_mode("resign-honest"); a, l = login(); tok = json.loads(exchange(a, l)[2])["id_token"]
h, p, s = tok.split(".")
open(R + "/si", "wb").write(f"{h}.{p}".encode()); open(R + "/sig", "wb").write(b64d(s))
v = subprocess.run(["openssl", "dgst", "-sha256", "-verify", tp["public_key"], "-signature", R + "/sig", R + "/si"],
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout.strip()
check(v == "Verified OK", f"openssl dgst -verify with proxy-pub.pem on a re-signed id_token: {v}")

# refresh grant through the proxy
set_mode("honest"); a, l = login(); rt = json.loads(exchange(a, l)[2])["refresh_token"]
for mode in ("honest", "flip-signature", "token-error"):
    set_mode(mode)
    st, _, body, _ = http(prov["token_endpoint"], {"grant_type": "refresh_token", "refresh_token": rt, "client_id": CID})
    e = log()[-1]
    check(e["grant_type"] == "refresh_token" and (st, e["upstream"]) == ((400, False) if mode == "token-error" else (200, True)),
          f"refresh grant in {mode}: {st}, keys {sorted(json.loads(body))}, proxy: {e['tampered']}")

# discovery modes: exactly one member changed
for mode, member, value in (("issuer-mismatch", "issuer", ISS + "/other"), ("no-s256", "code_challenge_methods_supported", ["plain"])):
    set_mode(mode); dm = json.loads(http(prov["discovery"])[2])
    changed = sorted(k for k in set(dm) | set(disc) if dm.get(k) != disc.get(k))
    check(changed == [member] and dm[member] == value, f"{mode}: discovery differs only in {changed}: {dm[member]}")

# canned token answers (Glewlwyd not asked: the same code still works afterwards)
set_mode("honest"); a, l = login()
set_mode("token-error"); st, hd, body, _ = exchange(a, l)
check(st == 400 and json.loads(body) == {"error": "invalid_grant", "error_description": "tampered: code rejected"}
      and log()[-1]["upstream"] is False, f"token-error: {st} {body.decode()}")
set_mode("huge-token-response"); st, hd, body, secs = exchange(a, l)
check(st == 200 and len(body) == 3 * 1024 * 1024 and hd["Content-Type"] == "application/json" and json.loads(body)["token_type"] == "bearer",
      f"huge-token-response: {st}, {len(body)} bytes of valid JSON in {secs:.3f} s")
set_mode("html-token-response"); st, hd, body, _ = exchange(a, l)
check(st == 200 and hd["Content-Type"].startswith("text/html") and body.startswith(b"<!DOCTYPE html>"), f"html-token-response: {st} {hd['Content-Type']}")
set_mode("honest"); st = exchange(a, l)[0]
check(st == 200, f"the same code then exchanged honestly: {st} (the canned modes never reached Glewlwyd)")
set_mode("bogus"); st = http(prov["discovery"])[0]
check(st == 500, f"unknown mode 'bogus': {st}")

# stall-token: the token request stalls, a concurrent discovery GET does not
set_mode("honest"); a, l = login(); set_mode("stall-token")
res = {}
def stalled():
    t = time.monotonic()
    try: res["token"] = ("answered", exchange(a, l, timeout=3)[0])
    except Exception as e: res["token"] = ("no answer", type(e).__name__)
    res["waited"] = time.monotonic() - t
th = threading.Thread(target=stalled); th.start(); time.sleep(0.5)
st, _, _, secs = http(prov["discovery"]); l2 = None
try: l2 = login()[1]
except Exception as e: pass
th.join()
check(res["token"][0] == "no answer" and res["waited"] > 2.9 and st == 200 and secs < 0.5 and l2 and l2["code"],
      f"stall-token: token request {res['token']} after {res['waited']:.2f} s (client timeout 3 s); "
      f"concurrent discovery {st} in {secs * 1000:.1f} ms; a concurrent login got a code")

# overhead: the same GET direct and through the proxy, alternately, fresh connections
set_mode("honest")
for what, path in (("discovery", "/api/oidc/.well-known/openid-configuration"), ("jwks", "/api/oidc/jwks"), ("login.html", "/login.html")):
    dt, pt = [], []
    for i in range(40):
        dt.append(http(prov["direct_origin"] + path)[3]); pt.append(http(tp["origin"] + path)[3])
    md, mp = statistics.median(dt) * 1000, statistics.median(pt) * 1000
    print(f"overhead {what:10}: direct {md:.2f} ms, proxy {mp:.2f} ms, +{mp - md:.2f} ms (median of 40)")
tok_ms = {}
for e in log():
    if e["path"].endswith("/token") and e.get("grant_type") == "authorization_code" and e["status"] == 200 and e["upstream"]:
        tok_ms.setdefault(e["mode"], []).append(e["ms"])
print("token request time inside the proxy (ms, incl. Glewlwyd):", {m: v for m, v in tok_ms.items()})
print("FAILED: " + "; ".join(fails) if fails else "ALL OK")
sys.exit(1 if fails else 0)
EOF
rc=$?
t=$(date +%s.%N); exec 7>&- 8>&-; wait; echo "both fixtures stopped on stdin EOF in $(echo "$(date +%s.%N) - $t" | bc) s"
echo "leftover: $(ps -eo pid,stat,cmd | grep -E "[g]lewlwyd -c $R/|[t]amper_provider.py .*$R/" | grep -v " Z " | wc -l)"
# proxy start-up: spawn -> JSON line, 5 starts (upstream need not answer)
for i in 1 2 3 4 5; do
  s=$(date +%s.%N); $F/tamper_provider.py --upstream http://127.0.0.1:9 --dir $R/start$i </dev/null >$R/start$i.json 2>&1 &
  pid=$!; wait_line $R/start$i.json; e=$(date +%s.%N); kill $pid; wait $pid
  echo "proxy start $i: $(echo "$e - $s" | bc | cut -c1-5) s (startup_seconds $($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["startup_seconds"])' $R/start$i.json))"
done
exit $rc
