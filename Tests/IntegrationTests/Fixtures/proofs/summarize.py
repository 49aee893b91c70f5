#!/usr/bin/python3
"""summarize.py OUTDIR: pass counts and median (min-max) timings of a run_all.sh run."""
import glob, json, os, statistics as st, sys

O = sys.argv[1]
os.chdir(O)


def med(xs):
    xs = [x for x in xs if x is not None]
    return f"{st.median(xs):.2f} ({min(xs):.2f}-{max(xs):.2f})" if xs else "-"


for kind, pat in (("first login", "custom-%s-*/login-first.json"), ("remembered", "custom-%s-*/login-second.json"),
                  ("loopback", "loop-%s-*/login.json")):
    for b in ("chromium", "firefox"):
        ds = [json.load(open(f)) for f in sorted(glob.glob(pat % b))]
        if not ds:
            continue
        keys = [k for k in ("launch", "form_shown", "login_submitted", "consent_granted", "continue_clicked",
                            "redirect_received", "handler_started", "loopback_page_loaded", "close", "total")
                if any(k in d["timings"] for d in ds)]
        print(f"{kind} {b}: ok {sum(d['ok'] for d in ds)}/{len(ds)}, form_seen {[d['form_seen'] for d in ds]}, "
              f"pss_mib {med([d.get('pss_mib') for d in ds])}")
        for k in keys:
            print(f"    {k:22} {med([d['timings'].get(k) for d in ds])}")
problems = []
for f in sorted(glob.glob("*.out")):
    t = open(f).read()
    if f.startswith("a2a") and ("handler got" not in t or "/resume 302 leg1_cookie True True" not in t):
        problems.append(f)
    if f.startswith(("custom", "loop")) and t.count('"status": 200') != (2 if f.startswith("custom") else 1):
        problems.append(f + " (token exchange)")
    if any(l.startswith("leftover") and l.strip() != "leftover: 0" for l in t.splitlines()):
        problems.append(f + " (leftover processes)")
    for l in t.splitlines():
        if l.startswith("timing:"):
            print(f[:-4], l)
        if f.startswith(("modes", "tls-trust", "second-start")) and (" rc=" in l or "exit=" in l):
            print(f[:-4], l.strip())
print("problems:", problems or "none")
print(open("summary").read())
