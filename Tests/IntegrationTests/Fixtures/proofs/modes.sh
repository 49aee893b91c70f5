#!/bin/bash
# usage: modes.sh BROWSER RUNDIR: wrong password; --expect-no-form on a fresh profile; form login; then --g-continue (no page)
set -u
F=$(cd "$(dirname "$0")/.." && pwd)
B=$1; R=$2; rm -rf $R; mkdir -p $R
$F/test_desktop.py --root $R/desk > $R/desk.json || exit 1
eval "$(/usr/bin/python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["env"]; print("\n".join(f"export {k}={v}" for k,v in e.items()))' $R/desk.json)"
coproc PROV { exec $F/glewlwyd_provider.py --dir $R/prov --redirect-uri com.example.app:/callback 2>$R/prov.err; }
read -r -t 30 line <&${PROV[0]}; echo "$line" > $R/prov.json
url() { /usr/bin/python3 $F/oidc_client.py authorize --provider $R/prov.json --redirect-uri com.example.app:/callback --scope "${1:-openid}" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["url"])'; }
show() { /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ok", d["ok"], "form_seen", d["form_seen"], "msg", d.get("message","-")[:120], "t", {k: d["timings"].get(k) for k in ("launch","continue_clicked","redirect_received","handler_started","total")})' $1; }
/usr/bin/python3 $F/browser_login.py --browser $B --profile $R/p-bad --url "$(url)" --username alice --password wrong --timeout 30 > $R/bad.json 2>$R/bad.err; echo "wrong password rc=$?"; show $R/bad.json
/usr/bin/python3 $F/browser_login.py --browser $B --profile $R/p-fresh --url "$(url)" --expect-no-form --timeout 30 > $R/fresh.json 2>$R/fresh.err; echo "expect-no-form on fresh profile rc=$?"; show $R/fresh.json
/usr/bin/python3 $F/browser_login.py --browser $B --profile $R/p --url "$(url)" --username alice --password alice-Passw0rd --wait-file $R/desk/records.jsonl > $R/login.json; echo "login (scope openid) rc=$?"; show $R/login.json
/usr/bin/python3 $F/browser_login.py --browser $B --profile $R/p --url "$(url)" --g-continue --expect-no-form --wait-file $R/desk/records.jsonl > $R/gc.json; echo "g_continue rc=$?"; show $R/gc.json
/usr/bin/python3 -c 'import json,sys; print(" steps", json.load(open(sys.argv[1]))["steps"])' $R/gc.json | cut -c1-300
wc -l < $R/desk/records.jsonl
exec {PROV[1]}>&-; wait
