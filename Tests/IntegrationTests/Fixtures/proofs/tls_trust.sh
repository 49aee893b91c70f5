#!/bin/bash
# usage: tls_trust.sh RUNDIR -- headless Chromium against tls_provider.py: untrusted CA refused, NSS-trusted CA accepted
set -u
F=$(cd "$(dirname "$0")/.." && pwd)
R=$1; rm -rf $R; mkdir -p $R
for mode in untrusted trusted; do
  H=$R/$mode-home; mkdir -p $H
  trust=""; [ $mode = trusted ] && trust="--trust-home $H"
  coproc TLS { exec $F/tls_provider.py --dir $R/$mode-tls $trust; }
  read -r -t 30 line <&${TLS[0]}; ORIGIN=$(echo "$line" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["origin"])')
  ROOTFLAG=""; [ "$(id -u)" = 0 ] && ROOTFLAG=--no-sandbox
  HOME=$H timeout 60 /usr/lib/chromium/chromium --headless=new $ROOTFLAG --user-data-dir=$R/$mode-profile --no-first-run \
     --disable-gpu --dump-dom "$ORIGIN/authorize?redirect_uri=com.example.app:/callback&state=s1" > $R/$mode.dom 2>$R/$mode.err
  echo "$mode: chromium exit=$? title=$(grep -o '<title>[^<]*' $R/$mode.dom | head -1) load-error=$(grep -o "Page load failed: [^ ]*" $R/$mode.err || echo none) requests=$(cat $R/$mode-tls/requests.jsonl 2>/dev/null | wc -l)"
  exec {TLS[1]}>&-; wait $TLS_PID 2>/dev/null
done
