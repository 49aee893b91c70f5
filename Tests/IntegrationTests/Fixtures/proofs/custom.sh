#!/bin/bash
# usage: custom.sh BROWSER RUNDIR [SCOPE]   -- one provider, login (form) then remembered (no form), both via handler
set -u
F=$(cd "$(dirname "$0")/.." && pwd)
B=$1; R=$2; SCOPE=${3:-openid email profile}
rm -rf $R; mkdir -p $R
$F/test_desktop.py --root $R/desk > $R/desk.json || exit 1
eval "$(/usr/bin/python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["env"]; print("\n".join(f"export {k}={v}" for k,v in e.items()))' $R/desk.json)"
coproc PROV { exec $F/glewlwyd_provider.py --dir $R/prov --redirect-uri com.example.app:/callback 2>$R/prov.err; }
read -r -t 30 line <&${PROV[0]} || { echo "provider failed: $(cat $R/prov.err)"; exit 1; }
echo "$line" > $R/prov.json
for run in first second; do
  /usr/bin/python3 $F/oidc_client.py authorize --provider $R/prov.json --redirect-uri com.example.app:/callback --scope "$SCOPE" > $R/auth-$run.json
  URL=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["url"])' $R/auth-$run.json)
  extra=""; [ $run = second ] && extra="--expect-no-form"
  /usr/bin/python3 $F/browser_login.py --browser $B --profile $R/profile --url "$URL" --username alice --password alice-Passw0rd --wait-file $R/desk/records.jsonl --screenshot $R/$run.png $extra > $R/login-$run.json
  echo "$run exit=$?"; cat $R/login-$run.json
  CODE=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("code",""))' $R/login-$run.json)
  V=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["code_verifier"])' $R/auth-$run.json)
  [ -n "$CODE" ] && /usr/bin/python3 $F/oidc_client.py token --provider $R/prov.json --redirect-uri com.example.app:/callback --code="$CODE" --code-verifier="$V" | cut -c1-300
done
echo "records:"; cat $R/desk/records.jsonl | cut -c1-250
exec {PROV[1]}>&-   # close provider stdin -> it stops
wait
echo "leftover: $(ps -eo pid,cmd | grep -E '[g]lewlwyd -c|[c]hromium/chromium|[f]irefox-esr|[c]hromedriver' | wc -l)"
