# Sourced (sh) by the package checks' scripts inside the Debian root, as the
# unprivileged user: what each of them sets up before it uses linkrouter.

# A session bus of the user's own (no user manager runs), in runtime directory $1.
session_bus() {
  export XDG_RUNTIME_DIR="$1"
  mkdir -p -m 0700 "$XDG_RUNTIME_DIR"
  dbus-daemon --session --fork --print-address=3 3>"$HOME/bus" --print-pid=4 4>"$HOME/bus.pid"
  DBUS_SESSION_BUS_ADDRESS=$(head -1 "$HOME/bus")
  export DBUS_SESSION_BUS_ADDRESS
}

# A desktop has a web browser: a stand-in entry, the default for web links (nothing opens a page).
standin_browser() {
  mkdir -p "$HOME/.local/share/applications"
  printf '[Desktop Entry]\nType=Application\nName=Stand-in browser\nExec=/bin/true %%u\nMimeType=x-scheme-handler/http;x-scheme-handler/https;text/html;\n' \
    >"$HOME/.local/share/applications/standin-browser.desktop"
  xdg-mime default standin-browser.desktop x-scheme-handler/http x-scheme-handler/https text/html
}

# A login of com.example.app left pending (its owner waiting, up to $1 ms):
# sets $login (the owner's pid) and $state; the owner writes $HOME/login.out and .err.
pending_login() {
  rm -f "$HOME/login.out" "$HOME/login.err"
  linkctl login --redirect-uri com.example.app:/callback --authorization-endpoint https://id.example.com/authorize \
    --client-id app --no-browser --timeout "$1" >"$HOME/login.out" 2>"$HOME/login.err" &
  login=$!
  i=0
  until grep -q '^  https://' "$HOME/login.err" 2>/dev/null; do
    i=$((i + 1))
    [ $i -lt 300 ] || { cat "$HOME/login.err"; return 1; }
    sleep 0.1
  done
  state=$(grep '^  https://' "$HOME/login.err" | sed 's/.*[?&]state=\([^&]*\).*/\1/')
}
