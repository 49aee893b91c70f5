#!/usr/bin/python3
"""A throwaway desktop for running the real-browser fixtures by hand.

test_desktop.py --root DIR [--scheme com.example.app] [--display :77]

Makes DIR/home with XDG_DATA_HOME/XDG_CONFIG_HOME inside it, a recording
"app" DIR/bin/record-url (appends each URL it is given, one JSON line with
the time and how it was started, to DIR/records.jsonl) with its desktop entry
test-app.desktop, registered with `xdg-mime default` for
x-scheme-handler/SCHEME. Prints one JSON line: {"env": {...}, "records": ...,
"handler": ...}: the environment to run a browser fixture with (the Swift
tests use their own TestDesktop instead; this is for proofs and debugging).
The handler path has no spaces: xdg-open splits Exec= on spaces.
"""
import argparse, json, os, subprocess, sys

RECORDER = r'''#!/usr/bin/python3
import json, os, sys, time
with open(%(records)r, "a") as f:
    f.write(json.dumps({"time": time.time(), "argv": sys.argv[1:], "ppid": os.getppid(),
                        "gio": os.environ.get("GIO_LAUNCHED_DESKTOP_FILE")}) + "\n")
'''


def desktop_env(root, display):
    home = os.path.join(root, "home")
    env = {
        "HOME": home, "XDG_DATA_HOME": home + "/.local/share", "XDG_CONFIG_HOME": home + "/.config",
        "XDG_STATE_HOME": home + "/.local/state", "XDG_CACHE_HOME": home + "/.cache",
        "XDG_RUNTIME_DIR": os.path.join(root, "run"),
        "XDG_DATA_DIRS": home + "/.local/share:/usr/local/share:/usr/share", "XDG_CONFIG_DIRS": "/etc/xdg",
        "DISPLAY": display, "BROWSER": "false", "LANG": "C.UTF-8",
        "PATH": os.path.join(root, "bin") + ":/usr/local/bin:/usr/bin:/bin",
    }
    return env


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--root", required=True)
    p.add_argument("--scheme", default="com.example.app")
    p.add_argument("--display", default=":77", help="Chromium needs a non-empty DISPLAY; no server is needed")
    a = p.parse_args()
    root = os.path.abspath(a.root)
    if " " in root:
        print("test_desktop: --root must have no spaces (xdg-open splits Exec= on spaces)", file=sys.stderr)
        return 1
    env = desktop_env(root, a.display)
    for d in (env["XDG_DATA_HOME"] + "/applications", env["XDG_CONFIG_HOME"], env["XDG_STATE_HOME"],
              env["XDG_CACHE_HOME"], os.path.join(root, "bin")):
        os.makedirs(d, mode=0o700, exist_ok=True)
    os.makedirs(env["XDG_RUNTIME_DIR"], mode=0o700, exist_ok=True)
    records = os.path.join(root, "records.jsonl")
    handler = os.path.join(root, "bin", "record-url")
    with open(handler, "w") as f:
        f.write(RECORDER % {"records": records})
    os.chmod(handler, 0o755)
    with open(env["XDG_DATA_HOME"] + "/applications/test-app.desktop", "w") as f:
        f.write(f"[Desktop Entry]\nType=Application\nName=Test app\nExec={handler} %u\n"
                f"MimeType=x-scheme-handler/{a.scheme};\nNoDisplay=true\n")
    run_env = {k: v for k, v in os.environ.items()
               if k not in ("XDG_CURRENT_DESKTOP", "DESKTOP_SESSION", "WAYLAND_DISPLAY")}
    run_env.update(env)
    subprocess.run(["xdg-mime", "default", "test-app.desktop", "x-scheme-handler/" + a.scheme], env=run_env, check=True)
    got = subprocess.run(["xdg-mime", "query", "default", "x-scheme-handler/" + a.scheme], env=run_env,
                         check=True, capture_output=True, text=True).stdout.strip()
    if got != "test-app.desktop":
        print(f"test_desktop: xdg-mime query says {got!r}", file=sys.stderr)
        return 1
    print(json.dumps({"env": env, "records": records, "handler": handler,
                      "desktop_entry": env["XDG_DATA_HOME"] + "/applications/test-app.desktop"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
