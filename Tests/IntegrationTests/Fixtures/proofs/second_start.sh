#!/bin/bash
# usage: second_start.sh RUNDIR -- does a second start of the browser on a profile in use reach the running instance?
# Chromium and Firefox, headless and headed (Xvfb); Firefox headed also inside dbus-run-session.
set -u
F=$(cd "$(dirname "$0")/.." && pwd)
R=$1; rm -rf $R; mkdir -p $R/www
coproc XV { exec $F/xvfb_display.py; }
read -r -t 15 xl <&${XV[0]}; XDISPLAY=$(echo "$xl" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["display"])')
/usr/bin/python3 -m http.server 0 --bind 127.0.0.1 --directory $R/www > $R/http.log 2>&1 & H=$!
until grep -qs "port" $R/http.log; do sleep 0.05; done; PORT=$(grep -o 'port [0-9]*' $R/http.log | head -1 | cut -d' ' -f2)
ROOTFLAG=""; [ "$(id -u)" = 0 ] && ROOTFLAG=--no-sandbox
try() {  # name, command prefix, browser argv (without URL)
  local name=$1 pre=$2; shift 2
  local P=$R/$name; mkdir -p $P
  $pre "$@" "http://127.0.0.1:$PORT/$name-first" > $P/1.log 2>&1 & local B=$!
  timeout 30 bash -c "until grep -q '$name-first' $R/http.log; do sleep 0.05; done"
  local s=$(date +%s.%N)
  timeout 10 $pre "$@" "http://127.0.0.1:$PORT/$name-second" > $P/2.log 2>&1; local rc=$?
  local t=$(echo "$(date +%s.%N) - $s" | bc)
  timeout 5 bash -c "until grep -q '$name-second' $R/http.log; do sleep 0.05; done" && fw=forwarded || fw="NOT forwarded"
  echo "$name: second start exit=$rc after ${t}s, $fw; says: $(grep -v 'ERR\|xcb\|ANGLE\|^\s\|GFX\|console\|Gtk\|dbus\|DBus\|headless mode\|Fontconfig' $P/2.log | head -1 | cut -c1-140)"
  kill $B; wait $B 2>/dev/null
}
CH="/usr/lib/chromium/chromium $ROOTFLAG --no-first-run --disable-gpu"
DISPLAY=:77 try chromium-headless "" $CH --headless=new --user-data-dir=$R/chromium-headless/p
DISPLAY=$XDISPLAY try chromium-headed "" $CH --user-data-dir=$R/chromium-headed/p
FF="/usr/lib/firefox-esr/firefox-esr"
for n in firefox-headless firefox-headed firefox-headed-dbus; do mkdir -p $R/$n/p; echo 'user_pref("browser.shell.checkDefaultBrowser", false); user_pref("browser.aboutwelcome.enabled", false);' > $R/$n/p/user.js; done
MOZ_HEADLESS=1 try firefox-headless "" $FF --headless --profile $R/firefox-headless/p
DISPLAY=$XDISPLAY DBUS_SESSION_BUS_ADDRESS= try firefox-headed "" $FF --profile $R/firefox-headed/p
export DISPLAY=$XDISPLAY; export -f try; export R PORT
dbus-run-session -- bash -c "try firefox-headed-dbus '' $FF --profile $R/firefox-headed-dbus/p" 2>/dev/null
kill $H
