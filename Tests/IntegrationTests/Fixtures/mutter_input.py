#!/usr/bin/python3
"""A person's key presses on headless mutter, through its own input API.

mutter_input.py DIR

mutter offers no virtual-keyboard protocol (wtype's), but its RemoteDesktop
D-Bus interface (org.gnome.Mutter.RemoteDesktop, on the session bus mutter was
started with: DBUS_SESSION_BUS_ADDRESS) injects real input: a session, Start,
then key events; no screencast stream is needed for the keyboard. The keys go
to the focused window with serials mutter grants activation tokens for, as a
person's presses do.

One session for the compositor's life: mutter focuses no window before the
first key of a session, and takes the focus away when a session stops, so the
session is kept, and the first key (a Shift) is pressed at once. Commands come
as files DIR/N.cmd (written whole), each `key` (presses "k") or `alt-tab`
(switches to the previous window: mutter has no other way to be told which
window to focus); DIR/N.done is written when it is done. DIR/ready once the
session has started. Exits when DIR/stop appears or its bus closes.
"""
import os
import sys
import time

from gi.repository import Gio, GLib

RD = "org.gnome.Mutter.RemoteDesktop"
KEYS = {"key": [0x6B], "alt-tab": [0xFFE9, 0xFF09], "shift": [0xFFE1]}


def main():
    d = sys.argv[1]
    bus = Gio.bus_get_sync(Gio.BusType.SESSION)

    def call(path, iface, method, args=None):
        return bus.call_sync(RD, path, iface, method, args, None, Gio.DBusCallFlags.NONE, 5000, None)

    session = call("/org/gnome/Mutter/RemoteDesktop", RD, "CreateSession").unpack()[0]
    call(session, RD + ".Session", "Start")

    def press(name):
        keys = KEYS[name]
        for k in keys:
            call(session, RD + ".Session", "NotifyKeyboardKeysym", GLib.Variant("(ub)", (k, True)))
            time.sleep(0.05)
        for k in reversed(keys):
            call(session, RD + ".Session", "NotifyKeyboardKeysym", GLib.Variant("(ub)", (k, False)))
            time.sleep(0.05)

    press("shift")
    open(os.path.join(d, "ready"), "w").close()
    n = 1
    while not os.path.exists(os.path.join(d, "stop")) and not bus.is_closed():
        cmd = os.path.join(d, "%d.cmd" % n)
        if not os.path.exists(cmd):
            time.sleep(0.01)
            continue
        with open(cmd) as f:
            press(f.read().strip())
        open(os.path.join(d, "%d.done" % n), "w").close()
        n += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
