#!/bin/bash
# usage: [HEADED=--headed] a2a.sh BROWSER RUNDIR -- app-to-app over TLS: a desktop entry opens /authorize in a real browser, a second
# start opens resume_uri in the same running browser (its leg1 cookie), the 302 reaches the com.example.app handler.
# Headed needs Xvfb (started here) and, for Firefox, a session D-Bus: HEADED=--headed dbus-run-session -- a2a.sh firefox DIR
set -u
F=$(cd "$(dirname "$0")/.." && pwd)
B=$1; R=$2
rm -rf $R; mkdir -p $R
$F/test_desktop.py --root $R/desk > $R/desk.json || exit 1
eval "$(/usr/bin/python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["env"]; print("\n".join(f"export {k}={v}" for k,v in e.items()))' $R/desk.json)"
if [ -n "${HEADED:-}" ]; then
  coproc XV { exec $F/xvfb_display.py; }
  read -r -t 15 xl <&${XV[0]}; export DISPLAY=$(echo "$xl" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["display"])'); echo "Xvfb: $xl"
fi
trust="--trust-home $HOME"; [ $B = firefox ] && { mkdir -p $R/profile; trust="--trust-firefox-profile $R/profile"; }
coproc TLS { exec $F/tls_provider.py --dir $R/tls $trust 2>$R/tls.err; }
read -r -t 30 line <&${TLS[0]} || { echo "tls failed: $(cat $R/tls.err)"; exit 1; }
echo "$line" > $R/tls.json
ORIGIN=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["origin"])' $R/tls.json)
$F/make_browser_entry.py --browser $B --profile $R/profile --applications $XDG_DATA_HOME/applications --id test-browser.desktop --scheme com.example.app --allow-origin $ORIGIN --default ${HEADED:-} > $R/entry.json || exit 1
t0=$(date +%s.%N)
xdg-open "$ORIGIN/authorize?redirect_uri=com.example.app:/callback&state=s1&client_id=x" & X1=$!
/usr/bin/python3 - "$R" <<'PY'
import json, sys, time, os
R = sys.argv[1]; deadline = time.time() + 30
while time.time() < deadline:
    try:
        for l in open(R + "/tls/requests.jsonl"):
            e = json.loads(l)
            if e["path"] == "/authorize":
                open(R + "/resume", "w").write(e["resume_uri"]); print("authorize seen", e["leg1_cookie"], e["user_agent"][:60]); sys.exit(0)
    except FileNotFoundError: pass
    time.sleep(0.05)
print("no authorize"); sys.exit(1)
PY
t1=$(date +%s.%N)
echo "browsers running: $(pgrep -f -- "$R/profile" | wc -l) procs"
xdg-open "$(cat $R/resume)" & X2=$!; sleep 0.1; echo "xdg-open 2 running? $(ps -p $X2 -o pid= | wc -l)"
/usr/bin/python3 - "$R" <<'PY'
import json, sys, time
R = sys.argv[1]; deadline = time.time() + 30
while time.time() < deadline:
    try:
        lines = open(R + "/desk/records.jsonl").read().splitlines()
        if lines: print("handler got", json.loads(lines[-1])["argv"]); break
    except FileNotFoundError: pass
    time.sleep(0.05)
else: print("handler NOT called")
for l in open(R + "/tls/requests.jsonl"): e = json.loads(l); print(e["path"], e["status"], "leg1_cookie", e["leg1_cookie"], e.get("cookie_matches"))
PY
t2=$(date +%s.%N)
echo "invocations:"; cat $R/profile.invocations.jsonl | cut -c1-200
echo "timing: authorize-open->seen $(echo "$t1 - $t0" | bc) s, resume-open->handler $(echo "$t2 - $t1" | bc) s"
ps -eo pid,ppid,cmd | grep -- "$R/profile" | grep -v -- "--type=\|grep\|contentproc" | cut -c1-200
$F/make_browser_entry.py --stop --profile $R/profile
exec {TLS[1]}>&-
wait $TLS_PID 2>/dev/null; sleep 0.5; echo "xdg-open 1 alive: $(ps -p $X1 -o pid= | wc -l) 2: $(ps -p $X2 -o pid= | wc -l)"
echo "leftover: $(ps -eo pid,cmd | grep -E '[c]hromium/chromium|[f]irefox-esr|[t]ls_provider' | wc -l)"
