import Foundation
import Glibc
import SystemKit

/// A notification server that does what GNOME Shell's does where dunst does
/// not (Fixtures/shell_notifications.py): any client may replace any
/// notification (`replaces_id`), and the person's answers go to everyone from
/// the server's name. The person clicks a button by its label (`click`); what
/// each `Notify` carried is read back (`notifications`).
final class ShellNotifications {
    let pid: Int32
    let uniqueName: String
    private let desktop: TestDesktop
    private let log: String

    /// One `Notify` as the server took it.
    struct Shown {
        let id: UInt32
        let replaces: UInt32
        let sender: String
        let summary: String
        let body: String
        let actions: [(key: String, label: String)]
    }

    init(desktop: TestDesktop, markup: Bool = true) throws {
        self.desktop = desktop
        log = desktop.root + "/shell-notifications.log"
        let out = desktop.root + "/shell-notifications.out"
        pid = try Subprocess.spawn(
            ["/usr/bin/python3", Paths.fixtures + "/shell_notifications.py", "--log", log, "--until", "signal"]
                + (markup ? [] : ["--no-markup"]),
            environment: desktop.environment, stdout: .file(out), stderr: .file(out + ".err"))
        guard eventually(timeoutMilliseconds: 20_000, { ((try? FileSystem.readText(out)) ?? "").hasSuffix("\n") })
        else {
            Subprocess.stop(pid, name: "the notification server")
            throw SystemError(
                "the notification server did not start: \((try? FileSystem.readText(out + ".err")) ?? "")",
                code: ETIMEDOUT)
        }
        uniqueName = ((try? FileSystem.readText(out)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Every `Notify` so far, oldest first.
    func notifications() -> [Shown] {
        ((try? FileSystem.readText(log)) ?? "").split(separator: "\n").compactMap { line in
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let id = o["id"] as? Int, let actions = o["actions"] as? [[String]]
            else { return nil }
            return Shown(
                id: UInt32(id), replaces: UInt32(o["replaces_id"] as? Int ?? 0), sender: o["sender"] as? String ?? "",
                summary: o["summary"] as? String ?? "", body: o["body"] as? String ?? "",
                actions: actions.map { (key: $0[0], label: $0[1]) })
        }
    }

    /// Waits for the `n`th notification from `sender` (any sender when nil).
    func waitFor(_ n: Int = 1, from sender: String? = nil, timeoutMilliseconds: Int = 20_000) -> Shown? {
        eventuallyValue(timeoutMilliseconds: timeoutMilliseconds) {
            let mine = notifications().filter { sender == nil || $0.sender == sender }
            return mine.count >= n ? mine[n - 1] : nil
        }
    }

    /// The person clicks the button labelled `label` on notification `id`.
    func click(_ id: UInt32, _ label: String) throws {
        let r = try desktop.run([
            "gdbus", "call", "--session", "--dest", uniqueName, "--object-path", "/person", "--method",
            "org.linkrouter.Test.Person.Click", "\(id)", label,
        ])
        guard r.status == 0 else { throw SystemError("Click: \(r.errorText)", code: EIO) }
    }

    deinit {
        Subprocess.stop(pid, name: "the notification server")
    }
}
