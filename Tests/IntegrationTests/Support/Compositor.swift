import Foundation
import Glibc
import SystemKit

/// A real Wayland compositor for the focus checks (issue 45): Debian's sway
/// 1.7, headless (wlroots' headless backend, the pixman renderer), with
/// `focus_on_window_activation focus` (GNOME and KDE focus a window given a
/// valid xdg-activation token; sway's default only marks it urgent) and
/// `no_focus` for the test apps (sway would otherwise focus every new window,
/// token or not). sway refuses to run as root, so as root it runs as nobody
/// (65534) in a directory of its own; the apps reach its socket through a
/// link in the desktop's runtime directory (`WAYLAND_DISPLAY`). Focus is
/// read from sway's tree; a person's key press is `wtype` (a virtual keyboard),
/// the input the focused app asks a token for.
final class Compositor: WaylandCompositor {
    let pid: Int32
    private let dir: TestDirectory
    private let desktop: TestDesktop
    let swaySocket: String

    static let typelib = "Gtk-4.0.typelib"

    static let unavailable: String? = {
        for p in ["/usr/bin/sway", "/usr/bin/swaymsg", "/usr/bin/wtype", "/usr/bin/setpriv"]
        where !FileSystem.isExecutable(p) {
            return "\(p) is missing (Debian: sway wtype util-linux); scripts/setup --test installs them"
        }
        let gtk4 = FileSystem.list("/usr/lib").contains {
            FileSystem.exists("/usr/lib/\($0)/girepository-1.0/" + typelib)
        }
        return gtk4
            ? nil : "GTK 4's introspection data is missing (Debian: gir1.2-gtk-4.0); scripts/setup --test installs it"
    }()

    /// The name `WAYLAND_DISPLAY` gives the apps: a link in the desktop's runtime directory to sway's socket.
    static let displayName = "wayland-linkrouter-test"

    init(desktop: TestDesktop) throws {
        self.desktop = desktop
        dir = TestDirectory("lr-sway")
        chmod(dir.path, 0o755)
        let runtime = dir.path + "/run"
        try FileSystem.makeDirectories(runtime, permissions: 0o700)
        let root = geteuid() == 0
        if root { chown(runtime, 65534, 65534) }
        let config = dir.path + "/config"
        try FileSystem.writeAtomically(
            config,
            text: """
                xwayland disable
                focus_on_window_activation focus
                no_focus [app_id="^org\\.example\\."]

                """, permissions: 0o644)
        let log = dir.path + "/sway.log"
        let environment = [
            "PATH=/usr/bin:/bin", "XDG_RUNTIME_DIR=" + runtime, "WLR_BACKENDS=headless", "WLR_LIBINPUT_NO_DEVICES=1",
            "WLR_RENDERER=pixman", "HOME=" + dir.path,
        ]
        let argv =
            (root ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : [])
            + ["/usr/bin/sway", "-d", "-c", config]
        pid = try Subprocess.spawn(argv, environment: environment, stdout: .file(log), stderr: .file(log))
        let up = eventually(timeoutMilliseconds: 20_000) {
            FileSystem.list(runtime).contains { $0.hasPrefix("sway-ipc.") }
                && FileSystem.list(runtime).contains("wayland-1")
        }
        guard up, let ipc = FileSystem.list(runtime).first(where: { $0.hasPrefix("sway-ipc.") }) else {
            Subprocess.stop(pid, name: "sway")
            throw SystemError(
                "sway did not start: \(((try? FileSystem.readText(log)) ?? "").suffix(2000))", code: ETIMEDOUT)
        }
        swaySocket = runtime + "/" + ipc
        try FileSystem.symlink(runtime + "/wayland-1", at: desktop.runtimeDir + "/" + Self.displayName)
        // The apps: GTK on this compositor, with the schemas and nothing of the machine's settings (as the portal
        // world has them), no portal, no accessibility bus.
        desktop.extraEnvironment.merge(
            [
                "WAYLAND_DISPLAY": Self.displayName, "GDK_BACKEND": "wayland", "NO_AT_BRIDGE": "1",
                "GTK_A11Y": "none", "GSETTINGS_SCHEMA_DIR": "/usr/share/glib-2.0/schemas",
                "GSETTINGS_BACKEND": "memory", "SWAYSOCK": swaySocket,
            ]
        ) { $1 }
    }

    /// sway's tree as JSON.
    private func tree() -> [String: Any]? {
        guard let r = try? desktop.run(["/usr/bin/swaymsg", "-s", swaySocket, "-t", "get_tree", "-r"]), r.status == 0
        else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(r.text.utf8)) as? [String: Any]
    }

    /// Every view's app id, and whether it has the focus.
    func views() -> [(appID: String, focused: Bool)] {
        var out: [(String, Bool)] = []
        func walk(_ node: [String: Any]) {
            if let id = node["app_id"] as? String { out.append((id, node["focused"] as? Bool ?? false)) }
            for key in ["nodes", "floating_nodes"] {
                for child in node[key] as? [[String: Any]] ?? [] { walk(child) }
            }
        }
        if let t = tree() { walk(t) }
        return out
    }

    func hasWindow(_ appID: String) -> Bool { views().contains { $0.appID == appID } }

    /// The app id of the focused view.
    func focused() -> String? { views().first(where: \.focused)?.appID }

    /// The person puts `appID`'s window in front (a click on it), once it is there.
    func focus(_ appID: String) throws {
        _ = eventually(timeoutMilliseconds: 20_000) { views().contains { $0.appID == appID } }
        let r = try desktop.run(["/usr/bin/swaymsg", "-s", swaySocket, "[app_id=\"\(appID)\"] focus"])
        guard r.status == 0, eventually(timeoutMilliseconds: 5000, { focused() == appID }) else {
            throw SystemError("could not focus \(appID): \(r.text) \(r.errorText)", code: EIO)
        }
    }

    /// A key press in the focused window: wtype's virtual keyboard (the pause before lets the client bind the new
    /// keyboard, the one after keeps it while the key is handled).
    func press() throws {
        let r = try desktop.run(["/usr/bin/wtype", "-s", "300", "k", "-s", "300"])
        guard r.status == 0 else { throw SystemError("wtype: \(r.errorText)", code: EIO) }
    }

    /// The compositor's own account of activation requests (wlroots' debug log), for a failing test's message.
    var log: String { ((try? FileSystem.readText(dir.path + "/sway.log", maxBytes: 1 << 22)) ?? "") }

    deinit {
        Subprocess.stop(pid, name: "sway")
    }
}

/// A real GTK 4 app on the compositor (Fixtures/focus_app.py): a window with its app id, that logs its focus, the
/// links it is opened with and what it did; what a person does in it is armed over the bus and runs at the next key
/// press (`Compositor.press`).
final class FocusApp {
    let appID: String
    let log: String
    private let desktop: TestDesktop

    init(_ desktop: TestDesktop, appID: String) {
        self.desktop = desktop
        self.appID = appID
        log = desktop.root + "/" + appID + Self.logSuffix
    }

    /// Every focus app that has logged on `desktop` (its log is named after its app id).
    static func all(_ desktop: TestDesktop) -> [FocusApp] {
        FileSystem.list(desktop.root).filter { $0.hasSuffix(logSuffix) }.map {
            FocusApp(desktop, appID: String($0.dropLast(logSuffix.count)))
        }
    }

    private static let logSuffix = ".focus.jsonl"

    /// Its command line (an `Exec` line's, with `%U` for the links).
    var command: String { "/usr/bin/python3 \(Paths.fixtures)/focus_app.py --app-id \(appID) --log \(log)" }

    /// Writes its desktop entry (taking `mimeTypes`); with `bus`, D-Bus activatable there.
    func install(mimeTypes: [String], bus: PrivateBus? = nil) throws {
        try FileSystem.writeAtomically(
            desktop.applications + "/" + appID + ".desktop",
            text: """
                [Desktop Entry]
                Type=Application
                Name=Focus test \(appID)
                Exec=\(command) %U
                MimeType=\(mimeTypes.map { $0 + ";" }.joined())
                \(bus == nil ? "" : "DBusActivatable=true")

                """, permissions: 0o644)
        if let bus {
            try FileSystem.writeAtomically(
                bus.serviceDirectory + "/" + appID + ".service",
                text: """
                    [D-BUS Service]
                    Name=\(appID)
                    Exec=\(command) --gapplication-service

                    """, permissions: 0o644)
        }
    }

    /// Starts it (as the person would from a launcher) with `arguments` (`--notifications`), and waits for its window.
    func start(_ compositor: some WaylandCompositor, arguments: [String] = []) throws -> Int32 {
        let pid = try Subprocess.spawn(
            command.split(separator: " ").map(String.init) + arguments, environment: desktop.environment,
            stdout: .file(log + ".out"), stderr: .file(log + ".err"))
        guard eventually(timeoutMilliseconds: 20_000, { compositor.hasWindow(appID) }) else {
            throw SystemError(
                "\(appID)'s window did not appear: \((try? FileSystem.readText(log + ".err")) ?? "")", code: ETIMEDOUT)
        }
        return pid
    }

    /// What it logged so far.
    func events() -> [[String: Any]] {
        ((try? FileSystem.readText(log)) ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The `n`th event named `name` (waited for).
    func event(_ name: String, _ n: Int = 1, timeoutMilliseconds: Int = 30_000) -> [String: Any]? {
        eventuallyValue(timeoutMilliseconds: timeoutMilliseconds) {
            let found = events().filter { $0["event"] as? String == name }
            return found.count >= n ? found[n - 1] : nil
        }
    }

    /// Kills every process of it that logged its start (an app the daemon started is no child of the test's).
    func kill() {
        for case let pid as Int in events().compactMap({ $0["event"] as? String == "started" ? $0["pid"] : nil }) {
            Glibc.kill(Int32(pid), SIGKILL)
        }
    }

    /// Arms `action` with `argument` (a GVariant in gdbus's text form) for the next key press.
    func arm(_ action: String, _ argument: String) throws {
        let path = "/" + appID.replacing(".", with: "/")
        let r = try desktop.run([
            "gdbus", "call", "--session", "--dest", appID, "--object-path", path, "--method",
            "org.gtk.Actions.Activate", action, "[<\(argument)>]", "{}",
        ])
        guard r.status == 0 else { throw SystemError("arming \(action) in \(appID): \(r.errorText)", code: EIO) }
    }
}
