#!/usr/bin/python3
"""A caller that plays the zombie trick on the daemon's identity check (issue 36).

zombie_caller.py --socket BUS_SOCKET --account NAME [--trick [--reap GO_FILE]]

With --trick: a child process connect()s to the bus socket (the bus takes the
connecting process's pid, SO_PEERCRED), hands the socket to this process over
a socketpair (SCM_RIGHTS) and exits, never reaped: a zombie, whose
/proc/PID/root is gone. This process then speaks D-Bus on that socket (GIO)
and calls GetToken(NAME). Without --trick (the control), this process
connects itself. Run inside a sandbox with a /.flatpak-info, the child's
sandbox would have named the app; as a zombie it names nothing.

With --reap (issue 44): the child is reaped once it has handed the socket
over, so its pid is free for another process to take; this process prints
"pid N" (the child's, which the bus recorded) and waits until GO_FILE exists
before it calls: meanwhile the test starts the daemon and has a host process
take pid N.

Prints "token" and exits 0 when a token came back (never the token itself),
else prints the D-Bus error name and message and exits 1.
"""
import argparse, os, socket, sys, time

from gi.repository import Gio, GLib


def connected(path, trick, reap):
    if not trick:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        return s.detach()
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    child = os.fork()
    if child == 0:
        ours.close()
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        socket.send_fds(theirs, [b"x"], [s.fileno()])
        os._exit(0)
    theirs.close()
    _, fds, _, _ = socket.recv_fds(ours, 1, 1)
    if reap:
        os.waitpid(child, 0)
        print("pid %d" % child, flush=True)
    return fds[0]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--socket", required=True)
    p.add_argument("--account", required=True)
    p.add_argument("--trick", action="store_true")
    p.add_argument("--reap", metavar="GO_FILE")
    a = p.parse_args()
    fd = connected(a.socket, a.trick, a.reap is not None)
    stream = Gio.Socket.new_from_fd(fd).connection_factory_create_connection()
    flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
    bus = Gio.DBusConnection.new_sync(stream, None, flags, None, None)
    while a.reap and not os.path.exists(a.reap):
        time.sleep(0.02)
    try:
        bus.call_sync("org.linkrouter.LinkRouter1", "/org/linkrouter/LinkRouter1", "org.linkrouter.LinkRouter1",
                      "GetToken", GLib.Variant("(sa{sv})", (a.account, {})), None, Gio.DBusCallFlags.NONE, 30000, None)
    except GLib.Error as e:
        print(Gio.DBusError.get_remote_error(e) or "", e.message)
        return 1
    print("token")
    return 0


if __name__ == "__main__":
    sys.exit(main())
