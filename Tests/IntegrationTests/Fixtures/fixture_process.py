"""How a fixture script lives and ends, the same way in each of them.

A fixture's children die with it, however it dies (`die_with_parent`, a
`preexec_fn`); it stops on SIGTERM, SIGINT or SIGHUP (`stop_on_signals`); and
with `--until auto` it also stops at stdin's EOF when stdin is a pipe, socket
or terminal, so a test that goes away takes its fixtures with it
(`run_until_stopped`).
"""
import ctypes, os, select, signal, stat, threading

PR_SET_PDEATHSIG = 1


def die_with_parent():
    """preexec_fn: the child gets SIGKILL when this process dies, however it dies."""
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        os._exit(127)
    if os.getppid() == 1:  # the parent already died between fork and prctl
        os._exit(127)


def stop_on_signals():
    """An event set by SIGTERM, SIGINT or SIGHUP."""
    stop = threading.Event()
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, lambda *_: stop.set())
    return stop


def stdin_watchable():
    try:
        mode = os.fstat(0).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or (stat.S_ISCHR(mode) and os.isatty(0))


def run_until_stopped(stop, until, going=lambda: True):
    """Returns when `stop` is set, when stdin ends (`until` "stdin", or "auto"
    with a watchable stdin), or when `going()` is false; `going` may raise."""
    watch = until == "stdin" or (until == "auto" and stdin_watchable())
    while not stop.is_set() and going():
        if watch:
            ready, _, _ = select.select([0], [], [], 0.5)
            if ready and not os.read(0, 4096):
                return
        else:
            stop.wait(0.5)
