#!/bin/bash
# usage: loopback.sh BROWSER RUNDIR  -- catcher on a free port, provider registered with that exact port, login, token
set -u
F=$(cd "$(dirname "$0")/.." && pwd)
B=$1; R=$2
rm -rf $R; mkdir -p $R
$F/test_desktop.py --root $R/desk > $R/desk.json || exit 1
eval "$(/usr/bin/python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["env"]; print("\n".join(f"export {k}={v}" for k,v in e.items()))' $R/desk.json)"
coproc CATCH { exec $F/loopback_catcher.py --timeout 90; }
read -r -t 10 first <&${CATCH[0]}; PORT=$(echo "$first" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["port"])')
RURI="http://127.0.0.1:$PORT/callback"
coproc PROV { exec $F/glewlwyd_provider.py --dir $R/prov --redirect-uri "$RURI" 2>$R/prov.err; }
read -r -t 30 line <&${PROV[0]} || { echo "provider failed: $(cat $R/prov.err)"; exit 1; }
echo "$line" > $R/prov.json
/usr/bin/python3 $F/oidc_client.py authorize --provider $R/prov.json --redirect-uri "$RURI" --scope "openid email profile" > $R/auth.json
URL=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["url"])' $R/auth.json)
/usr/bin/python3 $F/browser_login.py --browser $B --profile $R/profile --url "$URL" --username alice --password alice-Passw0rd --screenshot $R/result.png > $R/login.json
echo "login exit=$?"
read -r -t 10 caught <&${CATCH[0]}; echo "$caught" > $R/caught.json
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("timings", d["timings"], "pss", d.get("pss_mib"), "ok", d["ok"], d.get("message",""))' $R/login.json
echo "catcher: $(cut -c1-200 $R/caught.json)"
CODE=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("query",{}).get("code",""))' $R/caught.json)
V=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["code_verifier"])' $R/auth.json)
[ -n "$CODE" ] && /usr/bin/python3 $F/oidc_client.py token --provider $R/prov.json --redirect-uri "$RURI" --code="$CODE" --code-verifier="$V" | cut -c1-120
exec {PROV[1]}>&-
wait
echo "leftover: $(ps -eo pid,cmd | grep -E '[g]lewlwyd -c|[c]hromium/chromium|[f]irefox-esr|[c]hromedriver|[l]oopback_catcher' | wc -l)"
