#!/usr/bin/python3
"""Opens a link through the OpenURI portal, as a Flatpak or Snap app (a browser among them) does.

portal_open.py URI [--token T] [--activation-token TOK] [--timeout S]

Calls org.freedesktop.portal.OpenURI.OpenURI("", URI, {handle_token, [activation_token]})
on the session bus and waits for the Request's Response signal, subscribed before the
call (xdg-desktop-portal's documented pattern). Prints {"response": N} (0 success,
1 cancelled, 2 other) or {"error": "..."}; exits 0 when a Response came.
Run inside bubblewrap with a /.flatpak-info, the portal takes it for that Flatpak app.
"""
import argparse, json, sys

from gi.repository import Gio, GLib


def main():
    p = argparse.ArgumentParser()
    p.add_argument("uri")
    p.add_argument("--token", default="lrtest")
    p.add_argument("--activation-token")
    p.add_argument("--timeout", type=float, default=60.0)
    a = p.parse_args()
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    sender = bus.get_unique_name()[1:].replace(".", "_")
    handle = "/org/freedesktop/portal/desktop/request/%s/%s" % (sender, a.token)
    loop = GLib.MainLoop()
    out = {}

    def on_response(_c, _s, _p, _i, _sig, params, _d):
        out["response"] = params.unpack()[0]
        loop.quit()

    bus.signal_subscribe("org.freedesktop.portal.Desktop", "org.freedesktop.portal.Request", "Response",
                         handle, None, Gio.DBusSignalFlags.NONE,
                         on_response, None)
    options = {"handle_token": GLib.Variant("s", a.token)}
    if a.activation_token:
        options["activation_token"] = GLib.Variant("s", a.activation_token)
    try:
        bus.call_sync("org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop", "org.freedesktop.portal.OpenURI",
                      "OpenURI", GLib.Variant("(ssa{sv})", ("", a.uri, options)), GLib.VariantType("(o)"),
                      Gio.DBusCallFlags.NONE, int(a.timeout * 1000), None)
    except GLib.Error as e:
        print(json.dumps({"error": e.message}), flush=True)
        return 1
    print(json.dumps({"called": True}), flush=True)

    def give_up():
        out["error"] = "no Response within %s s" % a.timeout
        loop.quit()
        return False

    GLib.timeout_add(int(a.timeout * 1000), give_up)
    loop.run()
    print(json.dumps(out), flush=True)
    return 0 if "response" in out else 1


if __name__ == "__main__":
    sys.exit(main())
