#!/usr/bin/python3
"""A notification server that behaves as GNOME Shell's does, where dunst
does not: GNOME Shell cannot run here, and the consent prompt's threats are
about what it allows.

shell_notifications.py --log FILE [--no-markup] [--until auto|stdin|signal]

Owns org.freedesktop.Notifications on the session bus and serves
org.freedesktop.Notifications as js/ui/notificationDaemon.js does in GNOME
Shell 43: ids counted from 1; a Notify whose replaces_id names a notification
that is up replaces it, whoever sent either (the shell does not compare
senders); ActionInvoked and NotificationClosed are emitted from the server's
own name to everyone (the shell's `emit_signal`, no destination), where dunst
sends them to the notification's sender only; GetCapabilities as the shell
answers (body-markup among them, unless --no-markup).

The person: org.linkrouter.Test.Person at /person has Click(u id, s label),
which invokes the action labelled `label` on notification `id` as a person's
click on that button does (ActionInvoked, then the notification goes), and
Dismiss(u id). Every Notify is appended to FILE as one JSON line: id,
replaces_id, sender, app_name, summary, body, actions (key, label pairs).
Prints its unique name once it owns the name.
"""
import argparse, json, sys, threading

from fixture_process import run_until_stopped, stop_on_signals

from gi.repository import Gio, GLib

from notifications_interface import node as notifications_node

PERSON_XML = """<interface name="org.linkrouter.Test.Person">
  <method name="Click"><arg direction="in" type="u"/><arg direction="in" type="s"/></method>
  <method name="Dismiss"><arg direction="in" type="u"/></method>
</interface>"""


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--log", required=True)
    p.add_argument("--no-markup", action="store_true")
    p.add_argument("--until", choices=("auto", "stdin", "signal"), default="auto")
    a = p.parse_args()
    stop = stop_on_signals()
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    node = Gio.DBusNodeInfo.new_for_xml(notifications_node(PERSON_XML))
    shown = {}  # id -> actions as [(key, label)]
    state = {"next": 1}
    caps = ["actions", "body", "icon-static", "persistence", "sound"] + ([] if a.no_markup else ["body-markup"])

    def emit(member, args):
        # The shell's way: from the server, to everyone.
        bus.emit_signal(None, "/org/freedesktop/Notifications", "org.freedesktop.Notifications", member, args)

    def close(nid, reason):
        if shown.pop(nid, None) is not None:
            emit("NotificationClosed", GLib.Variant("(uu)", (nid, reason)))

    def call(conn, sender, path, iface, method, params, inv):
        if method == "GetCapabilities":
            inv.return_value(GLib.Variant("(as)", (caps,)))
        elif method == "GetServerInformation":
            inv.return_value(GLib.Variant("(ssss)", ("gnome-shell", "GNOME", "43", "1.2")))
        elif method == "Notify":
            app, replaces, icon, summary, body, actions, hints, timeout = params.unpack()
            if replaces and replaces in shown:
                nid = replaces
            else:
                nid = state["next"]
                state["next"] += 1
            shown[nid] = list(zip(actions[0::2], actions[1::2]))
            with open(a.log, "a") as f:
                f.write(json.dumps({"id": nid, "replaces_id": replaces, "sender": sender, "app_name": app,
                                    "summary": summary, "body": body, "actions": shown[nid]}) + "\n")
            inv.return_value(GLib.Variant("(u)", (nid,)))
        elif method == "CloseNotification":
            close(params.unpack()[0], 3)
            inv.return_value(None)
        elif method == "Click":
            nid, label = params.unpack()
            for key, shown_label in shown.get(nid, []):
                if shown_label == label:
                    emit("ActionInvoked", GLib.Variant("(us)", (nid, key)))
                    close(nid, 2)
                    inv.return_value(None)
                    return
            inv.return_dbus_error("org.linkrouter.Test.NoSuchButton", "no button %r on notification %d" % (label, nid))
        elif method == "Dismiss":
            close(params.unpack()[0], 2)
            inv.return_value(None)

    for iface in node.interfaces:
        bus.register_object("/org/freedesktop/Notifications" if iface.name.startswith("org.freedesktop") else "/person",
                            iface, call, None, None)
    owned = {"done": False}

    def acquired(*_):
        owned["done"] = True
        print(bus.get_unique_name(), flush=True)

    Gio.bus_own_name_on_connection(bus, "org.freedesktop.Notifications", Gio.BusNameOwnerFlags.NONE, acquired,
                                   lambda *_: stop.set())
    loop = GLib.MainLoop()

    def waiter():
        run_until_stopped(stop, a.until)
        GLib.idle_add(loop.quit)

    threading.Thread(target=waiter, daemon=True).start()
    # Python's signal handlers run only between Python steps: a tick keeps them running while GLib waits.
    GLib.timeout_add(100, lambda: True)
    loop.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
