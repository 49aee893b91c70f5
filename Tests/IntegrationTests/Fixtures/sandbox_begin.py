#!/usr/bin/python3
"""Begins a login session and waits for its result, as a sandboxed app does.

sandbox_begin.py: calls BeginSession (no browser), prints {"session": PATH, "url": URL}, then
calls the session's Wait and prints {"result": {...}} or {"error": "NAME: message"}.
Run inside bubblewrap with a /.flatpak-info, its bus through xdg-dbus-proxy, it is a Flatpak app.
"""
import json

from gi.repository import Gio, GLib

NAME, PATH, IFACE = "org.linkrouter.LinkRouter1", "/org/linkrouter/LinkRouter1", "org.linkrouter.LinkRouter1"


def main():
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    options = {
        "authorization_endpoint": GLib.Variant("s", "https://auth.example.com/authorize"),
        "client_id": GLib.Variant("s", "demo"),
        "redirect_uri": GLib.Variant("s", "com.example.app:/callback"),
        "open_browser": GLib.Variant("b", False),
    }
    path, url = bus.call_sync(NAME, PATH, IFACE, "BeginSession", GLib.Variant("(a{sv})", (options,)),
                              GLib.VariantType("(os)"), Gio.DBusCallFlags.NONE, 10000, None).unpack()
    print(json.dumps({"session": path, "url": url}), flush=True)
    try:
        reply = bus.call_sync(NAME, path, IFACE + ".Session", "Wait", GLib.Variant("(u)", (60000,)),
                              GLib.VariantType("(a{sv})"), Gio.DBusCallFlags.NONE, 70000, None).unpack()[0]
        print(json.dumps({"result": {k: str(v) for k, v in reply.items()}}), flush=True)
    except GLib.Error as e:
        print(json.dumps({"error": e.message}), flush=True)


main()
