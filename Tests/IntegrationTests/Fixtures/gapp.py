#!/usr/bin/python3
"""A real GApplication for the deep-link tests: HANDLES_OPEN, so GLib gives
it org.freedesktop.Application.Open (D-Bus activation) and single-instance
forwarding for free, as every GNOME app that handles links has.

    gapp.py APP_ID RECORD_FILE [URI...]

Each URI it is asked to open is appended to RECORD_FILE as one JSON line
{"pid": …, "uri": …, "activation_token": …, "desktop_startup_id": …}. The
process stays up (held) for a while after its last open, so a burst of links
lands in one instance; it quits after IDLE seconds without one.
"""
import json
import os
import sys

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

IDLE = int(os.environ.get("GAPP_IDLE_SECONDS", "20"))


class App(Gio.Application):
    def __init__(self, app_id, record):
        super().__init__(application_id=app_id, flags=Gio.ApplicationFlags.HANDLES_OPEN)
        self.record = record
        self.idle = None
        self.platform = {}

    def _write(self, entry):
        with open(self.record, "a") as f:
            f.write(json.dumps(entry) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def _keep_alive(self):
        # One hold while links keep coming; released IDLE s after the last.
        if self.idle is None:
            self.hold()
        else:
            GLib.source_remove(self.idle)
        self.idle = GLib.timeout_add_seconds(IDLE, self._quit)

    def _quit(self):
        self.idle = None
        self.release()
        return False

    def do_before_emit(self, platform_data):
        # What came with the call: D-Bus activation's platform_data, or a forwarded command line's.
        self.platform = platform_data.unpack() if platform_data is not None else {}
        Gio.Application.do_before_emit(self, platform_data)

    def do_activate(self):
        self._write({"pid": os.getpid(), "activate": True})
        self._keep_alive()

    def do_open(self, files, n_files, hint):
        self._keep_alive()

    def do_startup(self):
        Gio.Application.do_startup(self)
        self._write({"pid": os.getpid(), "started": True})


def main():
    app_id, record = sys.argv[1], sys.argv[2]
    app = App(app_id, record)

    # The platform data (activation token) comes with the Open call, before do_open.
    def on_open(application, files, n_files, hint):
        for f in files:
            p = application.platform
            application._write({"pid": os.getpid(), "uri": f.get_uri(),
                                "activation_token": p.get("activation-token") or os.environ.get("XDG_ACTIVATION_TOKEN"),
                                "desktop_startup_id": p.get("desktop-startup-id") or os.environ.get("DESKTOP_STARTUP_ID")})

    app.connect("open", on_open)
    return app.run([sys.argv[0]] + sys.argv[3:])


if __name__ == "__main__":
    sys.exit(main())
