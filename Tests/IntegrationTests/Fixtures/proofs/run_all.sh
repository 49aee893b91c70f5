#!/bin/bash
# usage: run_all.sh OUTDIR [ROUNDS=5] -- every proof, one browser at a time; then summarize.py OUTDIR
# (the headed app-to-app runs need Xvfb; Firefox's also a session D-Bus: dbus-run-session)
T=$(cd "$(dirname "$0")" && pwd); O=$1; N=${2:-5}; rm -rf $O; mkdir -p $O
step() { local name=$1; shift; local s=$(date +%s.%N); timeout 300 "$@" > $O/$name.out 2>&1; echo "$name rc=$? wall=$(echo "$(date +%s.%N) - $s" | bc)" >> $O/summary; }
for i in $(seq $N); do
  for B in chromium firefox; do
    step custom-$B-$i $T/custom.sh $B $O/custom-$B-$i
    step loop-$B-$i $T/loopback.sh $B $O/loop-$B-$i
    step a2a-$B-$i $T/a2a.sh $B $O/a2a-$B-$i
  done
done
step a2a-chromium-headed-1 env HEADED=--headed $T/a2a.sh chromium $O/a2a-chromium-headed-1
step a2a-firefox-headed-1 env HEADED=--headed dbus-run-session -- $T/a2a.sh firefox $O/a2a-firefox-headed-1
step modes-chromium-1 $T/modes.sh chromium $O/modes-chromium-1
step modes-firefox-1 $T/modes.sh firefox $O/modes-firefox-1
step tls-trust $T/tls_trust.sh $O/tls-trust
step second-start $T/second_start.sh $O/second-start
/usr/bin/python3 $T/summarize.py $O
