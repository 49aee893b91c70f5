import Foundation
import SystemKit

/// Apps that take deep links, for the tests: a real GApplication (PyGObject,
/// `HANDLES_OPEN`, D-Bus activatable through the test bus's service
/// directory), or a plain `Exec` app that records its argv and environment.
struct TestApp {
    let id: String
    let record: String

    /// Every line the app wrote: `{"pid":…, "uri":…, …}` for an open, `{"started":true}` at start.
    func lines() -> [[String: Any]] {
        ((try? FileSystem.readText(record)) ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The URIs it was asked to open, in order.
    func opened() -> [String] { lines().compactMap { $0["uri"] as? String } }

    /// Waits until it has opened `count` links.
    @discardableResult
    func waitForOpens(_ count: Int, timeoutMilliseconds: Int = 15_000) -> [String] {
        eventually(timeoutMilliseconds: timeoutMilliseconds) { opened().count >= count }
        return opened()
    }

    /// A GApplication with `DBusActivatable=true`, not running: D-Bus activation starts it.
    static func gapplication(
        _ desktop: TestDesktop, bus: PrivateBus, id: String = "org.example.LinkApp",
        schemes: [String] = ["com.example.app"], claims: [String] = [], extra: String = ""
    ) throws -> TestApp {
        let record = desktop.root + "/" + id + ".jsonl"
        let command = "/usr/bin/python3 \(Paths.fixtures)/gapp.py \(id) \(record)"
        try FileSystem.writeAtomically(
            desktop.applications + "/" + id + ".desktop",
            text: """
                [Desktop Entry]
                Type=Application
                Name=Link test app
                Exec=\(command) %U
                DBusActivatable=true
                MimeType=\(schemes.map { "x-scheme-handler/" + $0 + ";" }.joined())
                \(claims.isEmpty ? "" : "X-LinkRouter-Claims=" + claims.map { $0 + ";" }.joined())
                \(extra)
                """ + "\n", permissions: 0o644)
        try FileSystem.writeAtomically(
            bus.serviceDirectory + "/" + id + ".service",
            text: """
                [D-BUS Service]
                Name=\(id)
                Exec=\(command) --gapplication-service

                """, permissions: 0o644)
        return TestApp(id: id + ".desktop", record: record)
    }

    /// An `Exec` app (no D-Bus): a script that records its argv and activation variables.
    static func execApp(
        _ desktop: TestDesktop, id: String = "org.example.ExecApp", schemes: [String] = ["com.example.app"],
        claims: [String] = [], exec: String? = nil
    ) throws -> TestApp {
        let record = desktop.root + "/" + id + ".jsonl"
        let script = desktop.root + "/bin/" + id
        try FileSystem.writeAtomically(
            script,
            text: """
                #!/usr/bin/python3
                import json, os, sys
                with open("\(record)", "a") as f:
                    for uri in sys.argv[1:]:
                        f.write(json.dumps({"pid": os.getpid(), "uri": uri, "activation_token": os.environ.get("XDG_ACTIVATION_TOKEN"),
                                            "desktop_startup_id": os.environ.get("DESKTOP_STARTUP_ID"),
                                            "forwarded": os.environ.get("LINKROUTER_FORWARDED")}) + "\\n")

                """, permissions: 0o755)
        try FileSystem.writeAtomically(
            desktop.applications + "/" + id + ".desktop",
            text: """
                [Desktop Entry]
                Type=Application
                Name=Exec test app
                Exec=\(exec ?? script + " %u")
                MimeType=\(schemes.map { "x-scheme-handler/" + $0 + ";" }.joined())
                \(claims.isEmpty ? "" : "X-LinkRouter-Claims=" + claims.map { $0 + ";" }.joined())

                """, permissions: 0o644)
        return TestApp(id: id + ".desktop", record: record)
    }
}
