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
import argparse, ctypes, json, os, select, signal, stat, subprocess, sys, threading, time


def die_with_parent():
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    if libc.prctl(1, signal.SIGKILL, 0, 0, 0) != 0 or os.getppid() == 1:
        os._exit(127)


def stdin_watchable():
    try:
        mode = os.fstat(0).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or (stat.S_ISCHR(mode) and os.isatty(0))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--screen", default="1280x900x24")
    p.add_argument("--until", choices=("auto", "stdin", "signal"), default="auto")
    p.add_argument("--timeout", type=float, default=15.0)
    a = p.parse_args()
    stop = threading.Event()
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, lambda *_: stop.set())
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
    watch = a.until == "stdin" or (a.until == "auto" and stdin_watchable())
    try:
        while not stop.is_set() and proc.poll() is None:
            if watch:
                ready, _, _ = select.select([0], [], [], 0.5)
                if ready and not os.read(0, 4096):
                    break
            else:
                stop.wait(0.5)
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(5)
        os.close(r)
    return 0


if __name__ == "__main__":
    sys.exit(main())
