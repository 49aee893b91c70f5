#!/usr/bin/python3
"""Records X11 startup-notification messages, as a desktop's launch feedback sees them.

startup_watch.py --out FILE [--until auto|stdin|signal]

Watches the root window of $DISPLAY for the ClientMessages of the
startup-notification protocol (_NET_STARTUP_INFO_BEGIN, then _NET_STARTUP_INFO
continuations of 20 bytes each, up to a NUL) and appends each whole message,
such as `new: ID=… NAME=… SILENT=1` or `remove: ID=…`, to FILE as a JSON line.
Prints {"ready": true} once it listens. libX11 through ctypes: nothing to install.
"""
import argparse, ctypes, ctypes.util, json, os, select, sys

from fixture_process import stop_on_signals

PropertyChangeMask = 1 << 22
ClientMessage = 33


class XClientMessageEvent(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("serial", ctypes.c_ulong), ("send_event", ctypes.c_int),
                ("display", ctypes.c_void_p), ("window", ctypes.c_ulong), ("message_type", ctypes.c_ulong),
                ("format", ctypes.c_int), ("data", ctypes.c_long * 5)]


class XEvent(ctypes.Union):
    _fields_ = [("type", ctypes.c_int), ("xclient", XClientMessageEvent), ("pad", ctypes.c_long * 24)]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--until", choices=("auto", "stdin", "signal"), default="signal")
    a = p.parse_args()
    stop = stop_on_signals()
    x = ctypes.CDLL(ctypes.util.find_library("X11") or "libX11.so.6")
    x.XOpenDisplay.restype = ctypes.c_void_p
    x.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x.XDefaultRootWindow.restype = ctypes.c_ulong
    x.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
    x.XInternAtom.restype = ctypes.c_ulong
    x.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    x.XSelectInput.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_long]
    x.XConnectionNumber.argtypes = [ctypes.c_void_p]
    x.XPending.argtypes = [ctypes.c_void_p]
    x.XNextEvent.argtypes = [ctypes.c_void_p, ctypes.POINTER(XEvent)]
    x.XFlush.argtypes = [ctypes.c_void_p]
    d = x.XOpenDisplay(None)
    if not d:
        print("startup_watch: cannot open display %s" % os.environ.get("DISPLAY"), file=sys.stderr)
        return 1
    root = x.XDefaultRootWindow(d)
    begin = x.XInternAtom(d, b"_NET_STARTUP_INFO_BEGIN", 0)
    more = x.XInternAtom(d, b"_NET_STARTUP_INFO", 0)
    x.XSelectInput(d, root, PropertyChangeMask)
    x.XFlush(d)
    print(json.dumps({"ready": True}), flush=True)
    fd = x.XConnectionNumber(d)
    pending = {}
    event = XEvent()
    with open(a.out, "a") as out:
        while not stop.is_set():
            if not x.XPending(d):
                select.select([fd], [], [], 0.2)
                continue
            x.XNextEvent(d, ctypes.byref(event))
            if event.type != ClientMessage or event.xclient.message_type not in (begin, more):
                continue
            w = event.xclient.window
            chunk = ctypes.string_at(ctypes.addressof(event.xclient) + XClientMessageEvent.data.offset, 20)
            if event.xclient.message_type == begin:
                pending[w] = b""
            buf = pending.get(w, b"") + chunk
            if b"\0" in buf:
                out.write(json.dumps({"message": buf.split(b"\0", 1)[0].decode("utf-8", "replace")}) + "\n")
                out.flush()
                pending.pop(w, None)
            else:
                pending[w] = buf
    return 0


if __name__ == "__main__":
    sys.exit(main())
