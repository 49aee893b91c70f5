#!/usr/bin/python3
"""The real OpenURI portal on a test's own bus: Xvfb, xdg-permission-store,
xdg-desktop-portal-gtk (the chooser a person sees) and xdg-desktop-portal.

portal_world.py --dir DIR [--until auto|stdin|signal] [--schemas-for-gtk-only]

Runs with the test desktop's environment (its DBUS_SESSION_BUS_ADDRESS and
hermetic XDG directories). Starts Xvfb (-displayfd), then the three
services as a GNOME session would (XDG_CURRENT_DESKTOP=GNOME, the gtk
backend's UseIn), waits until org.freedesktop.portal.Desktop,
org.freedesktop.impl.portal.desktop.gtk and the permission store have owners,
and prints {"display": ":N", "pids": {...}, "portal_log": PATH}. Stays until
SIGTERM/SIGINT/SIGHUP or stdin EOF; its children die with it.

Every process of it is given one piece of system data beyond the test's
own: the GSettings schemas (GSETTINGS_SCHEMA_DIR), with an in-memory
settings backend (GSETTINGS_BACKEND=memory), so the schemas' defaults are
read and nothing of the machine's settings is. The gtk backend aborts
without them, and so does the portal itself wherever GIO's GNOME proxy
module is installed (glib-networking, on every GNOME desktop): with
XDG_CURRENT_DESKTOP=GNOME its proxy resolver reads org.gnome.system.proxy.
Applications, defaults and the permission store all come from the test's
directories and bus.
"""
import argparse, json, os, select, subprocess, sys, time

from fixture_process import die_with_parent, run_until_stopped, stop_on_signals

from gi.repository import Gio, GLib

# The system's compiled schemas (definitions and defaults, no one's settings).
SCHEMAS = "/usr/share/glib-2.0/schemas"
NAMES = ["org.freedesktop.impl.portal.PermissionStore", "org.freedesktop.impl.portal.desktop.gtk", "org.freedesktop.portal.Desktop"]


def start_xvfb(timeout):
    r, w = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-nolisten", "tcp", "-screen", "0", "1024x768x24"],
                            pass_fds=(w,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, preexec_fn=die_with_parent)
    os.close(w)
    buf, t0 = b"", time.time()
    while not buf.endswith(b"\n"):
        ready, _, _ = select.select([r], [], [], max(0, t0 + timeout - time.time()))
        chunk = os.read(r, 64) if ready else b""
        if not chunk:
            proc.kill()
            raise SystemExit("portal_world: Xvfb gave no display number")
        buf += chunk
    return proc, ":" + buf.decode().strip(), r


def has_owner(bus, name):
    reply = bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
                          GLib.Variant("(s)", (name,)), GLib.VariantType("(b)"), Gio.DBusCallFlags.NONE, 2000, None)
    return reply.unpack()[0]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dir", required=True)
    p.add_argument("--until", choices=("auto", "stdin", "signal"), default="auto")
    p.add_argument("--timeout", type=float, default=20.0)
    # The control of PortalTests.gioModules: the schemas withheld from every process but the gtk backend, as before
    # issue 50, where the portal aborts if GIO's GNOME proxy module is installed.
    p.add_argument("--schemas-for-gtk-only", action="store_true")
    a = p.parse_args()
    stop = stop_on_signals()
    os.makedirs(a.dir, exist_ok=True)
    xvfb, display, keep = start_xvfb(a.timeout)
    env = dict(os.environ, XDG_CURRENT_DESKTOP="GNOME", DISPLAY=display, GDK_BACKEND="x11", NO_AT_BRIDGE="1", GTK_A11Y="none",
               GSETTINGS_SCHEMA_DIR=SCHEMAS, GSETTINGS_BACKEND="memory")
    gtk_env = env
    if a.schemas_for_gtk_only:
        env = {k: v for k, v in env.items() if k not in ("GSETTINGS_SCHEMA_DIR", "GSETTINGS_BACKEND")}
    procs = {"xvfb": xvfb}
    logs = {}
    for name, argv, e in [("permission_store", ["/usr/libexec/xdg-permission-store", "--replace"], env),
                          ("gtk", ["/usr/libexec/xdg-desktop-portal-gtk", "--replace"], gtk_env),
                          ("portal", ["/usr/libexec/xdg-desktop-portal", "--replace", "-v"], env)]:
        logs[name] = os.path.join(a.dir, name + ".log")
        procs[name] = subprocess.Popen(argv, env=e, stdin=subprocess.DEVNULL, stdout=open(logs[name], "w"),
                                       stderr=subprocess.STDOUT, preexec_fn=die_with_parent)
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    deadline = time.time() + a.timeout
    while not all(has_owner(bus, n) for n in NAMES):
        dead = [n for n, pr in procs.items() if pr.poll() is not None]
        if dead or time.time() > deadline:
            why = "exited: " + ", ".join(dead) if dead else "timed out"
            print("portal_world: the portal did not come up (%s); logs in %s" % (why, a.dir), file=sys.stderr)
            for pr in procs.values():
                if pr.poll() is None:
                    pr.kill()
            return 1
        time.sleep(0.05)
    print(json.dumps({"display": display, "pids": {n: pr.pid for n, pr in procs.items()}, "portal_log": logs["portal"]}), flush=True)
    try:
        run_until_stopped(stop, a.until, going=lambda: all(pr.poll() is None for pr in procs.values()))
    finally:
        for pr in reversed(list(procs.values())):
            if pr.poll() is None:
                pr.terminate()
        for pr in procs.values():
            try:
                pr.wait(5)
            except subprocess.TimeoutExpired:
                pr.kill()
        os.close(keep)
    return 0


if __name__ == "__main__":
    sys.exit(main())
