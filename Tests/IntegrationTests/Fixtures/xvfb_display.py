#!/usr/bin/python3
"""A private X server (Xvfb) for a headed browser in a test.

xvfb_display.py [--screen 1280x900x24] [--until auto|stdin|signal]

Starts `Xvfb -displayfd FD -nolisten tcp -screen 0 SIZE` (PR_SET_PDEATHSIG: it
dies with this process), reads the display number up to its newline (the pipe
is kept open afterwards: closing it early killed Xvfb in about 1 run in 3),
prints {"display": ":N", "pid": XVFB_PID, "startup_seconds": …} and stays
until SIGTERM/SIGINT/SIGHUP or stdin EOF (if stdin is a pipe/socket/tty).
Headless browsers need no X server (Chromium only needs DISPLAY non-empty to
call xdg-open); a headed one does, e.g. to get Chromium's or Firefox's own
forwarding of a second start to the running instance.
"""
import argparse, json, os, select, subprocess, sys, time

from fixture_process import die_with_parent, run_until_stopped, stop_on_signals


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--screen", default="1280x900x24")
    p.add_argument("--until", choices=("auto", "stdin", "signal"), default="auto")
    p.add_argument("--timeout", type=float, default=15.0)
    a = p.parse_args()
    stop = stop_on_signals()
    t0 = time.time()
    r, w = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-nolisten", "tcp", "-screen", "0", a.screen],
                            pass_fds=(w,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, preexec_fn=die_with_parent)
    os.close(w)
    buf = b""
    while not buf.endswith(b"\n"):
        ready, _, _ = select.select([r], [], [], max(0, t0 + a.timeout - time.time()))
        chunk = os.read(r, 64) if ready else b""
        if not chunk:
            proc.kill()
            print("xvfb_display: Xvfb gave no display number" + ("" if ready else " before the timeout"), file=sys.stderr)
            return 1
        buf += chunk
    print(json.dumps({"display": ":" + buf.decode().strip(), "pid": proc.pid,
                      "startup_seconds": round(time.time() - t0, 3)}), flush=True)
    try:
        run_until_stopped(stop, a.until, going=lambda: proc.poll() is None)
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(5)
        os.close(r)
    return 0


if __name__ == "__main__":
    sys.exit(main())
