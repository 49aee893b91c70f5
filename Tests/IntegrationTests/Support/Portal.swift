import Foundation
import Glibc
import SystemKit

/// The real OpenURI portal (xdg-desktop-portal 1.16 with the gtk backend) on
/// a test's bus, under its own Xvfb (Fixtures/portal_world.py), and callers
/// made as Flatpak makes them: a process in bubblewrap whose `/.flatpak-info`
/// names its app id, which the portal reads through `/proc/PID/root`.
final class Portal {
    let pid: Int32
    let display: String
    let desktop: TestDesktop

    static let unavailable: String? = {
        for p in [
            "/usr/libexec/xdg-desktop-portal", "/usr/libexec/xdg-desktop-portal-gtk",
            "/usr/libexec/xdg-permission-store",
            "/usr/bin/bwrap", "/usr/bin/xdotool", "/usr/bin/Xvfb",
        ] where !FileSystem.isExecutable(p) {
            return
                "\(p) is missing (Debian: xdg-desktop-portal xdg-desktop-portal-gtk bubblewrap xdotool xvfb); scripts/setup --test installs them"
        }
        return nil
    }()

    /// `extraArguments`: portal_world.py's own (the control's `--schemas-for-gtk-only`).
    init(desktop: TestDesktop, extraArguments: [String] = []) throws {
        self.desktop = desktop
        // What the gtk chooser needs to draw its icons (it aborts without a MIME database to tell a PNG).
        // shared-mime-info names no application: handlers and defaults stay the test's own.
        try? FileSystem.symlink("/usr/share/mime", at: desktop.systemData + "/mime")
        let dir = desktop.root + "/portal"
        let out = desktop.root + "/portal.json"
        let err = desktop.root + "/portal.err"
        pid = try Subprocess.spawn(
            ["/usr/bin/python3", Paths.fixtures + "/portal_world.py", "--dir", dir, "--until", "signal"]
                + extraArguments,
            environment: desktop.environment, stdout: .file(out), stderr: .file(err))
        // Up (its line on stdout), or given up (its reason on stderr).
        _ = eventually(timeoutMilliseconds: 30_000) {
            ((try? FileSystem.readText(out)) ?? "").hasSuffix("\n")
                || ((try? FileSystem.readText(err)) ?? "").contains("portal_world:")
        }
        guard ((try? FileSystem.readText(out)) ?? "").hasSuffix("\n"),
            let json = try? JSONSerialization.jsonObject(with: Data(FileSystem.readText(out).utf8)) as? [String: Any],
            let display = json["display"] as? String
        else {
            Subprocess.stop(pid, name: "the portal")
            throw SystemError("the portal did not start: \((try? FileSystem.readText(err)) ?? "")", code: ETIMEDOUT)
        }
        self.display = display
        desktop.extraEnvironment["DISPLAY"] = display
    }

    /// `portal_open.py URI` inside bubblewrap with a `/.flatpak-info` naming `appID`, as Flatpak runs an app.
    func sandboxed(_ uri: String, as appID: String, timeoutSeconds: Int, activationToken: String? = nil) throws
        -> [String]
    {
        try FlatpakSandbox(desktop: desktop, appID: appID).command(
            ["/usr/bin/python3", Paths.fixtures + "/portal_open.py", uri, "--timeout", "\(timeoutSeconds)"]
                + (activationToken.map { ["--activation-token", $0] } ?? []))
    }

    /// `OpenURI(uri)` from a Flatpak-shaped caller, as a sandboxed browser hands a link to the
    /// host; the portal's Response code (0 success, 1 cancelled, 2 other), or nil when none came.
    func open(
        _ uri: String, as appID: String = "org.example.SandboxedBrowser", activationToken: String? = nil,
        timeoutSeconds: Int = 20
    ) throws -> Int? {
        let r = try desktop.run(
            try sandboxed(uri, as: appID, timeoutSeconds: timeoutSeconds, activationToken: activationToken),
            timeoutMilliseconds: (timeoutSeconds + 10) * 1000)
        return Self.response(r.text)
    }

    /// The same call, left running (for a chooser someone must answer); its output goes to `output`.
    func openInBackground(_ uri: String, as appID: String = "org.example.SandboxedBrowser", output: String) throws
        -> Int32
    {
        try Subprocess.spawn(
            try sandboxed(uri, as: appID, timeoutSeconds: 60), environment: desktop.environment,
            stdout: .file(output), stderr: .file(output + ".err"))
    }

    /// The Response code in portal_open.py's last line.
    static func response(_ text: String) -> Int? {
        let last = text.split(separator: "\n").last.map(String.init) ?? ""
        return ((try? JSONSerialization.jsonObject(with: Data(last.utf8))) as? [String: Any])?["response"] as? Int
    }

    /// The X windows whose name is `name` (the chooser is "Open With…"), as xdotool sees them.
    func windows(named name: String) -> [String] {
        let r = try? desktop.run(["xdotool", "search", "--name", name], timeoutMilliseconds: 5000)
        return (r?.text ?? "").split(separator: "\n").map(String.init)
    }

    /// Presses keys in a window, as a person at the chooser would.
    func press(_ keys: [String], in window: String) throws {
        _ = try desktop.run(["xdotool", "windowfocus", "--sync", window, "key"] + keys, timeoutMilliseconds: 5000)
    }

    /// The portal's remembered "Open With…" picks for a content type, from its permission store.
    func picks(_ mime: String) throws -> String {
        try desktop.run([
            "gdbus", "call", "--session", "--dest", "org.freedesktop.impl.portal.PermissionStore",
            "--object-path", "/org/freedesktop/impl/portal/PermissionStore",
            "--method", "org.freedesktop.impl.portal.PermissionStore.Lookup", "desktop-used-apps", mime,
        ]).text
    }

    /// Remembers `handler` (a desktop id without `.desktop`, as the portal stores it) as `requester`'s pick.
    func remember(_ handler: String, for mime: String, requester: String) throws {
        let r = try desktop.run([
            "gdbus", "call", "--session", "--dest", "org.freedesktop.impl.portal.PermissionStore",
            "--object-path", "/org/freedesktop/impl/portal/PermissionStore",
            "--method", "org.freedesktop.impl.portal.PermissionStore.SetPermission",
            "desktop-used-apps", "true", mime, requester, "['\(handler)', '3', '3']",
        ])
        guard r.status == 0 else { throw SystemError("SetPermission failed: \(r.errorText)", code: 1) }
    }

    deinit {
        Subprocess.stop(pid, name: "the portal")
    }
}
