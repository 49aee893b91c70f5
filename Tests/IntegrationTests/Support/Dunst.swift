import DBusKit
import Foundation
import Glibc
import SystemKit

/// Debian's dunst, a real notification server, on the test's own bus and an
/// X display of its own (Xvfb), with its configuration from the test's
/// `XDG_CONFIG_HOME`; `dunstctl` drives it over D-Bus as its keyboard
/// shortcuts would (a person clicking a notification is `dunstctl action`).
final class Dunst {
    let pid: Int32
    let display: XvfbDisplay
    private let desktop: TestDesktop

    init(desktop: TestDesktop) throws {
        self.desktop = desktop
        display = try XvfbDisplay(desktop: desktop)
        desktop.extraEnvironment["DISPLAY"] = display.display
        // Notifications stay until acted on or withdrawn; nothing of the machine's own configuration is read.
        try FileSystem.makeDirectories(desktop.configHome + "/dunst", permissions: 0o700)
        // The context menu (`dunstctl context`) goes through dunst's `dmenu` setting: this one picks the line
        // naming the action the test wrote to `choice` (`choose`), as a person picks it from the menu, and leaves
        // what it was offered in `offered` (whole: renamed into place once read).
        try FileSystem.writeAtomically(
            desktop.root + "/dunst-menu",
            text: """
                #!/bin/sh
                cat > "$0.offered.part"
                grep -F -- "$(cat "$0.choice")" "$0.offered.part" | head -n 1
                mv "$0.offered.part" "$0.offered"

                """, permissions: 0o700)
        try FileSystem.writeAtomically(
            desktop.configHome + "/dunst/dunstrc",
            text: """
                [global]
                    dmenu = \(desktop.root)/dunst-menu
                    sticky_history = true
                [urgency_low]
                    timeout = 0
                [urgency_normal]
                    timeout = 0
                [urgency_critical]
                    timeout = 0

                """, permissions: 0o600)
        pid = try Subprocess.spawn(
            ["dunst"], environment: desktop.environment, stdout: .null, stderr: .file(desktop.root + "/dunst.err"))
        let probe = try DBusConnection(address: desktop.busAddress!)
        guard eventually(timeoutMilliseconds: 20_000, { probe.nameHasOwner("org.freedesktop.Notifications") }) else {
            Subprocess.stop(pid, name: "dunst")
            throw SystemError(
                "dunst did not take org.freedesktop.Notifications: \((try? FileSystem.readText(desktop.root + "/dunst.err")) ?? "")",
                code: ETIMEDOUT)
        }
    }

    /// `dunstctl count displayed|history|waiting`.
    func count(_ what: String = "displayed") -> Int {
        Int(
            ((try? desktop.run(["dunstctl", "count", what]))?.text ?? "").trimmingCharacters(
                in: .whitespacesAndNewlines))
            ?? -1
    }

    /// The person clicks the notification shown first: its default action (`dunstctl action 0`).
    func click() throws {
        let r = try desktop.run(["dunstctl", "action", "0"])
        guard r.status == 0 else { throw SystemError("dunstctl action: \(r.errorText)", code: EIO) }
    }

    /// The person dismisses every notification shown (`dunstctl close-all`).
    func dismissAll() throws {
        let r = try desktop.run(["dunstctl", "close-all"])
        guard r.status == 0 else { throw SystemError("dunstctl close-all: \(r.errorText)", code: EIO) }
    }

    /// The person opens the context menu of the notification shown first and picks the action labelled `label`
    /// (dunst lists each action there; its `dmenu` setting is the picker). What the menu offered is returned.
    @discardableResult
    func choose(_ label: String) throws -> String {
        try FileSystem.writeAtomically(desktop.root + "/dunst-menu.choice", text: label + "\n", permissions: 0o600)
        try? FileSystem.remove(desktop.root + "/dunst-menu.offered")
        let r = try desktop.run(["dunstctl", "context"])
        guard r.status == 0 else { throw SystemError("dunstctl context: \(r.errorText)", code: EIO) }
        _ = eventually(timeoutMilliseconds: 10_000) { FileSystem.exists(self.desktop.root + "/dunst-menu.offered") }
        return (try? FileSystem.readText(desktop.root + "/dunst-menu.offered")) ?? ""
    }

    /// The summaries (or another field, such as `body`) of what it shows and has shown (`dunstctl history` keeps
    /// those closed by a person or a call).
    func history(_ field: String = "summary") -> [String] {
        let text = (try? desktop.run(["dunstctl", "history"]))?.text ?? ""
        guard let json = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let data = json["data"] as? [[[String: Any]]]
        else { return [] }
        return data.flatMap { $0 }.compactMap { ($0[field] as? [String: Any])?["data"] as? String }
    }

    deinit {
        Subprocess.stop(pid, name: "dunst")
    }
}
