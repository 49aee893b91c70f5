import Foundation
import Glibc
import SystemKit

/// GNOME's own compositor for the focus checks (issue 45): Debian's mutter 43,
/// headless (`--headless --wayland --no-x11 --virtual-monitor`), on a session
/// bus of its own (the test's bus stays the apps'). mutter has no IPC to read
/// or set the focus without GNOME Shell, so the focus is read from the GTK
/// apps themselves (their windows' `is-active`, which `focus_app.py` logs),
/// the person's key press comes through mutter's RemoteDesktop interface
/// (`Fixtures/mutter_input.py`), and a window is put in front with Alt+Tab
/// (which switches between the two most recent windows: the tests here use
/// two). Unlike sway with `no_focus`, mutter focuses every window that maps,
/// token or not: only a running window's coming to the front tells a token's
/// doing here.
final class Mutter: WaylandCompositor {
    let pid: Int32
    private let busPid: Int32
    private let dir: TestDirectory
    private let desktop: TestDesktop
    private let busAddress: String

    static let unavailable: String? = {
        if let missing = Compositor.unavailable { return missing }
        return FileSystem.isExecutable("/usr/bin/mutter")
            ? nil : "/usr/bin/mutter is missing (Debian: mutter); scripts/setup --test installs it"
    }()

    init(desktop: TestDesktop) throws {
        self.desktop = desktop
        dir = TestDirectory("lr-mutter")
        let runtime = dir.path + "/run"
        try FileSystem.makeDirectories(runtime, permissions: 0o700)
        let socket = dir.path + "/bus"
        let address = "unix:path=" + socket
        busAddress = address
        let log = dir.path + "/mutter.log"
        busPid = try Subprocess.spawn(
            ["/usr/bin/dbus-daemon", "--session", "--nofork", "--address=" + address],
            stdout: .file(log), stderr: .file(log))
        guard eventually(timeoutMilliseconds: 10_000, { FileSystem.exists(socket) }) else {
            Subprocess.stop(busPid, name: "mutter's bus")
            throw SystemError("mutter's bus did not start", code: ETIMEDOUT)
        }
        let environment = [
            "PATH=/usr/bin:/bin", "XDG_RUNTIME_DIR=" + runtime, "HOME=" + dir.path,
            "DBUS_SESSION_BUS_ADDRESS=" + address, "GSETTINGS_BACKEND=memory",
        ]
        do {
            pid = try Subprocess.spawn(
                [
                    "/usr/bin/mutter", "--headless", "--wayland", "--no-x11", "--virtual-monitor", "800x600",
                    "--wayland-display=wayland-mutter",
                ], environment: environment, stdout: .file(log), stderr: .file(log))
        } catch {
            Subprocess.stop(busPid, name: "mutter's bus")
            throw error
        }
        // Up: its Wayland socket, and its input API on its bus.
        let up = eventually(timeoutMilliseconds: 20_000) {
            FileSystem.exists(runtime + "/wayland-mutter")
                && (try? Subprocess.run(
                    [
                        "gdbus", "call", "--address", address, "--dest", "org.freedesktop.DBus",
                        "--object-path", "/org/freedesktop/DBus", "--method", "org.freedesktop.DBus.NameHasOwner",
                        "org.gnome.Mutter.RemoteDesktop",
                    ], environment: environment))?.text.contains("true") == true
        }
        guard up else {
            Subprocess.stop(pid, name: "mutter")
            Subprocess.stop(busPid, name: "mutter's bus")
            throw SystemError(
                "mutter did not start: \(((try? FileSystem.readText(log)) ?? "").suffix(2000))", code: ETIMEDOUT)
        }
        try FileSystem.symlink(runtime + "/wayland-mutter", at: desktop.runtimeDir + "/" + Compositor.displayName)
        desktop.extraEnvironment.merge(
            [
                "WAYLAND_DISPLAY": Compositor.displayName, "GDK_BACKEND": "wayland", "NO_AT_BRIDGE": "1",
                "GTK_A11Y": "none", "GSETTINGS_SCHEMA_DIR": "/usr/share/glib-2.0/schemas",
                "GSETTINGS_BACKEND": "memory",
            ]
        ) { $1 }
        // The person's keyboard: one input session for mutter's life (its first key, a Shift, pressed at once).
        let inputs = dir.path + "/input"
        self.inputs = inputs
        try FileSystem.makeDirectories(inputs, permissions: 0o700)
        inputPid = try Subprocess.spawn(
            ["/usr/bin/python3", Paths.fixtures + "/mutter_input.py", inputs],
            environment: ["PATH=/usr/bin:/bin", "DBUS_SESSION_BUS_ADDRESS=" + address, "PYTHONDONTWRITEBYTECODE=1"],
            stdout: .file(log), stderr: .file(log))
        guard eventually(timeoutMilliseconds: 20_000, { FileSystem.exists(inputs + "/ready") }) else {
            throw SystemError(
                "mutter's input session did not start: \(((try? FileSystem.readText(log)) ?? "").suffix(2000))",
                code: ETIMEDOUT)
        }
    }

    /// The input session's directory of commands, and its process.
    private let inputs: String
    private let inputPid: Int32
    private var commands = 0

    /// Each app's window's `is-active`, as it last logged it.
    /// Each focus app's last word on whether its window is active (from its own log, `FocusApp.events`).
    private func active() -> [String: Bool] {
        var out: [String: Bool] = [:]
        for app in FocusApp.all(desktop) {
            let said = app.events().last { $0["event"] as? String == "active" }
            if let value = said?["value"] as? Bool { out[app.appID] = value }
        }
        return out
    }

    func hasWindow(_ appID: String) -> Bool {
        FocusApp(desktop, appID: appID).events().contains { $0["event"] as? String == "shown" }
    }

    /// The one app whose window says it is active (none while a switch is half logged).
    func focused() -> String? {
        let on = active().filter(\.value).map(\.key)
        return on.count == 1 ? on[0] : nil
    }

    func focus(_ appID: String) throws {
        _ = eventually(timeoutMilliseconds: 20_000) { hasWindow(appID) }
        for _ in 0..<3 {
            if eventually(timeoutMilliseconds: 2000, { focused() == appID }) { return }
            try input("alt-tab")
        }
        guard eventually(timeoutMilliseconds: 5000, { focused() == appID }) else {
            throw SystemError("could not focus \(appID) (active: \(active()))", code: EIO)
        }
    }

    func press() throws { try input("key") }

    /// Has the input session press `what` (`key`, `alt-tab`), and waits until it has.
    private func input(_ what: String) throws {
        commands += 1
        try FileSystem.writeAtomically(inputs + "/\(commands).cmd", text: what, permissions: 0o600)
        guard eventually(timeoutMilliseconds: 10_000, { FileSystem.exists(inputs + "/\(commands).done") }) else {
            throw SystemError("mutter's input session did not press \(what): \(log.suffix(2000))", code: ETIMEDOUT)
        }
    }

    var log: String { ((try? FileSystem.readText(dir.path + "/mutter.log", maxBytes: 1 << 22)) ?? "") }

    deinit {
        Subprocess.stop(inputPid, name: "mutter's input session")
        Subprocess.stop(pid, name: "mutter")
        Subprocess.stop(busPid, name: "mutter's bus")
    }
}
