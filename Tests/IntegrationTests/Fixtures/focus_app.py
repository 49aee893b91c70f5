#!/usr/bin/python3
"""A real GTK 4 app on a Wayland compositor, for the focus tests (issue 45).

focus_app.py --app-id ID --log FILE [--gapplication-service] [URI...]

A GtkApplication (unique on the session bus, HANDLES_OPEN) with one window
whose Wayland app_id is ID. It appends JSON lines to FILE:
  {"event": "started", "env_token": ..., "env_startup_id": ...}
  {"event": "open", "uris": [...]}                    each Open (deep link)
  {"event": "active", "value": true|false}            the window's is-active
  {"event": "token", "token": ...}                    a token it was given by the compositor
  {"event": "ran", "argv": [...], "status": N}        a program it ran with a token
  {"event": "begun", "path": ...} / {"event": "waited", "result": {...}}
  {"event": "returned", "with_token": bool}          ReturnRequested came (the way back
                                                      from a loopback login's page)
  {"event": "shown", "with_token": bool}             its window mapped (and presented with
                                                      the token it was started with, if any)
  {"event": "presented", "with_token": bool}         presented after a login's Wait

What a person does in it comes as GActions, activated over the bus
(org.gtk.Actions.Activate on /ID-as-path), which arm what the next key
press does; the test then sends a real key press to the focused window
(wtype), and the action runs inside the press, as a click handler runs, so
the compositor has the input serial to grant a token for:
  run(as argv)         ask the compositor for a token (as GTK does for a
                       launch: GdkAppLaunchContext) and run argv with it in
                       XDG_ACTIVATION_TOKEN and DESKTOP_STARTUP_ID (a link
                       clicked: `linkctl open URI`); "run-plain" runs it with
                       neither (the control)
  open-uri(s uri)      open a link as a GTK app does: GIO launches the
                       scheme's default handler (linkrouter's entry) with the
                       display's launch context; "-plain" with a bare one
  click-notification(s label)
                       (--notifications) the person's click on the newest
                       notification's button `label`: ActivationToken with a
                       fresh token, then ActionInvoked; "-plain" sends no token
                       (a server that sends none: the control)
  begin(s options)     BeginSession(options + activation_token: a fresh
                       token) on org.linkrouter.LinkRouter1, then Wait; the
                       window presents itself with the answer's
                       activation_token (gtk_window_set_startup_id, present);
                       "begin-plain" passes no token and presents with none
                       (the controls)
"""
import argparse, json, os, subprocess, sys

# The token this process was started with, taken before GTK sees it: GTK 4.8 would use it at the first present,
# before the window is mapped, and sway 1.7 ignores (and spends) an activation of a window not yet mapped. The app
# uses it once its window is shown instead, as the compositor needs.
STARTED_WITH = (os.environ.pop("XDG_ACTIVATION_TOKEN", None), os.environ.pop("DESKTOP_STARTUP_ID", None))

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Gdk", "4.0")
gi.require_version("GdkWayland", "4.0")
from gi.repository import Gdk, GdkWayland, Gio, GLib, Gtk

from notifications_interface import node as notifications_node


def present(w, token):
    """Presents `w` with `token` as GTK 4.8 can on Wayland: the display's startup notification id, which the next
    focus request activates with (gtk_window_set_startup_id does not reach Wayland in 4.8: measured, it asks for a
    new token instead)."""
    display = w.get_display()
    if token and isinstance(display, GdkWayland.WaylandDisplay):
        display.set_startup_notification_id(token)
    w.present()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--app-id", required=True)
    p.add_argument("--log", required=True)
    p.add_argument("--notifications", action="store_true",
                   help="also serve org.freedesktop.Notifications, as GNOME Shell does: the person's click on a "
                        "notification sends ActivationToken(id, token) (a token for that click), then ActionInvoked")
    p.add_argument("uris", nargs="*")
    # D-Bus activation starts it with --gapplication-service: GApplication's own option, passed on to it.
    a, gapplication = p.parse_known_args()

    def log(**event):
        with open(a.log, "a") as f:
            f.write(json.dumps(event) + "\n")

    log(event="started", env_token=STARTED_WITH[0], env_startup_id=STARTED_WITH[1], pid=os.getpid())
    class App(Gtk.Application):
        def do_add_platform_data(self, builder):
            # A second instance hands its click's token to the running one, as GTK does from the environment (which
            # this process took from GTK: STARTED_WITH).
            Gtk.Application.do_add_platform_data(self, builder)
            for key, value in (("activation-token", STARTED_WITH[0]), ("desktop-startup-id", STARTED_WITH[1])):
                if value:
                    builder.add_value(GLib.Variant("{sv}", (key, GLib.Variant("s", value))))

    app = App(application_id=a.app_id, flags=Gio.ApplicationFlags.HANDLES_OPEN)
    # The token it was started with (GTK 4.8 takes DESKTOP_STARTUP_ID): sway 1.7 ignores an activation of a window
    # not yet mapped, so it is used once the window is shown, as the compositor needs it.
    state = {"window": None, "pending": STARTED_WITH[1] or STARTED_WITH[0]}

    def use_pending(w):
        t = state["pending"]
        state["pending"] = None
        if t:
            present(w, t)
        log(event="shown", with_token=bool(t))
        return False

    def window():
        if state["window"] is None:
            w = Gtk.ApplicationWindow(application=app, title=a.app_id)
            w.set_default_size(320, 200)
            w.connect("notify::is-active", lambda w, _: log(event="active", value=w.is_active()))
            w.connect("map", lambda w: GLib.timeout_add(50, use_pending, w))
            # The person's key press runs what the test armed, in the press itself, as a click handler would: the
            # compositor grants a token for the serial of input the focused window is handling.
            keys = Gtk.EventControllerKey()
            keys.connect("key-pressed", pressed)
            w.add_controller(keys)
            state["window"] = w
        return state["window"]

    def token():
        # What GTK does for a launch from a focused window: an xdg-activation token for the last input serial.
        context = Gdk.Display.get_default().get_app_launch_context()
        info = Gio.AppInfo.create_from_commandline("true", "launch", Gio.AppInfoCreateFlags.SUPPORTS_STARTUP_NOTIFICATION)
        t = context.get_startup_notify_id(info, [])
        log(event="token", token=t)
        return t

    def run(argv, with_token):
        env = dict(os.environ)
        for k in ("XDG_ACTIVATION_TOKEN", "DESKTOP_STARTUP_ID"):
            env.pop(k, None)
        if with_token:
            t = token()
            if t:
                env["XDG_ACTIVATION_TOKEN"] = t
                env["DESKTOP_STARTUP_ID"] = t
        child = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)
        # A click's program may keep running (an app it starts): its end is logged when it comes.
        def ended(pid, status):
            out, err = child.communicate()
            log(event="ran", argv=argv, status=os.waitstatus_to_exitcode(status), out=out, err=err[-2000:])
        GLib.child_watch_add(GLib.PRIORITY_DEFAULT, child.pid, ended)

    def open_uri(uri, with_token):
        # A link clicked in a GTK app: GIO launches the scheme's default handler (as GNOME apps and Firefox do),
        # with the display's launch context (a token for this click) or a bare one (none).
        context = Gdk.Display.get_default().get_app_launch_context() if with_token else Gio.AppLaunchContext()
        try:
            Gio.AppInfo.launch_default_for_uri(uri, context)
            log(event="launched", uri=uri)
        except GLib.Error as e:
            log(event="launched", uri=uri, error=e.message)

    def begin(options, with_token):
        bus = app.get_dbus_connection()
        opts = {k: GLib.Variant("s", v) if isinstance(v, str) else GLib.Variant("b", v) for k, v in options.items()}
        if with_token:
            t = token()
            if t:
                opts["activation_token"] = GLib.Variant("s", t)

        def waited(conn, res):
            try:
                result = conn.call_finish(res).unpack()[0]
            except GLib.Error as e:
                log(event="waited", error=e.message)
                return
            log(event="waited", result={k: v for k, v in result.items() if k in ("code", "state", "activation_token")})
            given = result.get("activation_token") if with_token else None
            present(window(), given)
            log(event="presented", with_token=bool(given))

        def began(conn, res):
            try:
                path, url = conn.call_finish(res).unpack()
            except GLib.Error as e:
                log(event="begun", error=e.message)
                return
            log(event="begun", path=path, url=url)

            # The way back from a loopback login's page: the daemon hands this app the click's token.
            def returned(conn, sender, path, iface, signal, params):
                context = params.unpack()[0]
                given = context.get("desktop_startup_id") or context.get("activation_token")
                present(window(), given)
                log(event="returned", with_token=bool(given))

            conn.signal_subscribe(None, "org.linkrouter.LinkRouter1.Session", "ReturnRequested",
                                  path, None, Gio.DBusSignalFlags.NONE, returned)
            conn.call(
                "org.linkrouter.LinkRouter1", path, "org.linkrouter.LinkRouter1.Session", "Wait", GLib.Variant("(u)", (0,)),
                GLib.VariantType("(a{sv})"), Gio.DBusCallFlags.NONE, 120000, None, waited)

        bus.call("org.linkrouter.LinkRouter1", "/org/linkrouter/LinkRouter1", "org.linkrouter.LinkRouter1",
                 "BeginSession", GLib.Variant("(a{sv})", (opts,)), GLib.VariantType("(os)"), Gio.DBusCallFlags.NONE,
                 30000, None, began)

    # The notification server's part (--notifications): what it shows, by id.
    shown = {}

    def notifications_call(conn, sender, path, iface, method, params, invocation):
        if method == "Notify":
            _, replaces, _, summary, body, actions, _, _ = params.unpack()
            nid = replaces if replaces in shown else len(shown) + 1
            shown[nid] = list(zip(actions[0::2], actions[1::2]))
            log(event="notify", id=nid, summary=summary, actions=shown[nid])
            invocation.return_value(GLib.Variant("(u)", (nid,)))
            window().set_title(summary)
        elif method == "CloseNotification":
            nid = params.unpack()[0]
            if shown.pop(nid, None) is not None:
                conn.emit_signal(None, path, iface, "NotificationClosed", GLib.Variant("(uu)", (nid, 3)))
            invocation.return_value(None)
        elif method == "GetCapabilities":
            invocation.return_value(GLib.Variant("(as)", (["actions", "body", "body-markup"],)))
        else:
            invocation.return_value(GLib.Variant("(ssss)", ("focus_app", "linkrouter", "1", "1.2")))

    def click_notification(label, with_token):
        # The person's click on the newest notification's button `label`: as GNOME Shell, a token for the click
        # first (ActivationToken), then the action; both to everyone, from the server.
        bus = app.get_dbus_connection()
        nid = max(shown)
        key = next(k for k, l in shown[nid] if l == label)
        if with_token:
            t = token()
            if t:
                bus.emit_signal(None, "/org/freedesktop/Notifications", "org.freedesktop.Notifications",
                                "ActivationToken", GLib.Variant("(us)", (nid, t)))
        bus.emit_signal(None, "/org/freedesktop/Notifications", "org.freedesktop.Notifications", "ActionInvoked",
                        GLib.Variant("(us)", (nid, key)))
        log(event="clicked", id=nid, key=key, with_token=with_token)

    def startup(_):
        # It goes with its test: when the compositor or the test's bus is gone (an app the daemon started outlives
        # the test otherwise), and in any case after ten minutes.
        Gdk.Display.get_default().connect("closed", lambda *_: os._exit(0))
        app.get_dbus_connection().connect("closed", lambda *_: os._exit(0))
        GLib.timeout_add_seconds(600, lambda: os._exit(0))
        if not a.notifications:
            return
        bus = app.get_dbus_connection()
        node = Gio.DBusNodeInfo.new_for_xml(notifications_node())
        bus.register_object("/org/freedesktop/Notifications", node.interfaces[0], notifications_call, None, None)
        Gio.bus_own_name_on_connection(bus, "org.freedesktop.Notifications", Gio.BusNameOwnerFlags.NONE,
                                       lambda *_: log(event="serving-notifications"), None)

    app.connect("startup", startup)

    def pressed(*_):
        armed = state.pop("armed", None)
        log(event="key", armed=armed is not None)
        if armed:
            armed()
        return False

    def arm(action):
        state["armed"] = action

    for name, handler in [
        ("run", lambda _, v: arm(lambda: run(list(v.unpack()), True))),
        ("run-plain", lambda _, v: arm(lambda: run(list(v.unpack()), False))),
        ("begin", lambda _, v: arm(lambda: begin(json.loads(v.unpack()), True))),
        ("begin-plain", lambda _, v: arm(lambda: begin(json.loads(v.unpack()), False))),
        ("open-uri", lambda _, v: arm(lambda: open_uri(v.unpack(), True))),
        ("open-uri-plain", lambda _, v: arm(lambda: open_uri(v.unpack(), False))),
        ("click-notification", lambda _, v: arm(lambda: click_notification(v.unpack(), True))),
        ("click-notification-plain", lambda _, v: arm(lambda: click_notification(v.unpack(), False))),
    ]:
        action = Gio.SimpleAction.new(name, GLib.VariantType("as" if name.startswith("run") else "s"))
        action.connect("activate", handler)
        app.add_action(action)

    def show():
        # A window not yet shown would spend the token GTK was handed (platform_data of a D-Bus activation, or of an
        # instance started by a click) before it is mapped; it is kept for the moment it is, as for STARTED_WITH.
        new = state["window"] is None
        w = window()
        display = w.get_display()
        if new and isinstance(display, GdkWayland.WaylandDisplay):
            handed = display.get_startup_notification_id()
            if handed:
                state["pending"] = state["pending"] or handed
                display.set_startup_notification_id("spent-before-the-window-is-mapped")
        w.present()

    def activate(_):
        show()

    def do_open(_, files, n, hint):
        log(event="open", uris=[f.get_uri() for f in files])
        show()

    app.connect("activate", activate)
    app.connect("open", do_open)
    return app.run([sys.argv[0]] + gapplication + a.uris)


if __name__ == "__main__":
    sys.exit(main())
