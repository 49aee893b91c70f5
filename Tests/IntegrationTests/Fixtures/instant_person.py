#!/usr/bin/python3
"""A notification server whose person answers at once: for the bench's
consent rows, where linkrouter's own cost around a prompt is measured
without a person's seconds in it.

instant_person.py --label LABEL

Owns org.freedesktop.Notifications on the session bus
(DBUS_SESSION_BUS_ADDRESS); each Notify is answered with a new id and, right
after, ActionInvoked(id, KEY) then NotificationClosed(id, 2), KEY being the
key of the action labelled LABEL (a prompt's keys are drawn for it), as a
person who chose the button of that label. Prints "ready" once the name is owned. Stops on SIGTERM.
"""
import argparse, signal, sys

from gi.repository import Gio, GLib

from notifications_interface import node as notifications_node

def main():
    p = argparse.ArgumentParser()
    p.add_argument("--label", required=True)
    a = p.parse_args()
    loop = GLib.MainLoop()
    counter = [0]
    node = Gio.DBusNodeInfo.new_for_xml(notifications_node())

    def call(conn, sender, path, iface, method, params, invocation):
        if method == "Notify":
            counter[0] += 1
            nid = counter[0]
            actions = params.unpack()[5]
            key = next((k for k, label in zip(actions[0::2], actions[1::2]) if label == a.label), "default")
            invocation.return_value(GLib.Variant("(u)", (nid,)))
            conn.emit_signal(None, path, iface, "ActionInvoked", GLib.Variant("(us)", (nid, key)))
            conn.emit_signal(None, path, iface, "NotificationClosed", GLib.Variant("(uu)", (nid, 2)))
        elif method == "GetCapabilities":
            invocation.return_value(GLib.Variant("(as)", (["actions", "body"],)))
        elif method == "GetServerInformation":
            invocation.return_value(GLib.Variant("(ssss)", ("instant_person", "linkrouter", "1", "1.2")))
        else:
            invocation.return_value(None)

    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    bus.register_object("/org/freedesktop/Notifications", node.interfaces[0], call, None, None)

    def acquired(*_):
        print("ready", flush=True)

    Gio.bus_own_name_on_connection(bus, "org.freedesktop.Notifications", Gio.BusNameOwnerFlags.NONE, acquired, None)
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, loop.quit)
    loop.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
