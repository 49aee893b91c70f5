import Freedesktop
import Glibc
import SystemKit

/// Whether GIO loses links to a D-Bus-activatable app (issue 20's condition
/// for making linkrouter's own entry one: 100 of 100 clicks, once each, in
/// order, through every launcher). The receiver is the tests' GApplication,
/// a do-nothing app: what GIO does on its side is the same for any
/// D-Bus-activatable entry, linkrouter's too. Beside it, linkrouter's entry
/// as shipped (`Exec=linkctl open`) under the same launchers.
extension Bench {
    func gioDelivery() throws {
        say("GIO delivery to a D-Bus-activatable app")
        let w = try world("giodelivery")
        try w.startDaemon()
        let bench = try BenchApp(in: w, bin: bin)
        let record = bench.record
        let list = w.root + "/home/.config/mimeapps.list"
        let straight = bench.straight
        let viaLinkrouter = bench.viaLinkrouter
        // A program that launches with GIO's synchronous API and exits at once; and one that stays
        // (as Firefox does) and launches each link with the asynchronous API, waiting for its callback.
        let syncExit = [
            "/usr/bin/python3", "-c",
            "import sys, gi; gi.require_version('Gio', '2.0'); from gi.repository import Gio; Gio.AppInfo.launch_default_for_uri(sys.argv[1], None)",
        ]
        let longRunning = """
            import sys, gi
            gi.require_version('Gio', '2.0')
            from gi.repository import Gio, GLib
            loop = GLib.MainLoop()
            for uri in sys.argv[1:]:
                Gio.AppInfo.launch_default_for_uri_async(uri, None, None, lambda o, r, d: (Gio.AppInfo.launch_default_for_uri_finish(r), loop.quit()), None)
                loop.run()
            """
        let app = BenchAppProcess(world: w)
        var batch = 0
        /// `count` links through `launch`; how many arrived, and whether once each and in order.
        func deliver(
            _ name: String, mimeapps: String, count: Int, stopApp: Bool = false, _ launch: ([String]) throws -> Void
        ) throws -> (arrived: Int, clean: Bool) {
            try FileSystem.writeAtomically(list, text: mimeapps, permissions: 0o644)
            batch += 1
            let links = (1...count).map { "com.example.bench:/\(batch)/\(name.filter(\.isLetter))/\($0)" }
            if stopApp {
                for link in links {
                    app.stop()
                    try launch([link])
                }
            } else {
                try launch(links)
            }
            // A lost link never comes: wait for all, or for 10 s without a new one.
            var seen = -1
            while true {
                let now = opened(in: record, batch: batch)
                if now.count >= count || now.count == seen { break }
                seen = now.count
                _ = w.wait({ opened(in: record, batch: batch).count > seen }, milliseconds: 10_000)
            }
            let got = opened(in: record, batch: batch)
            return (Set(got).count, got == links)
        }
        func eachProcess(_ argv: [String]) -> ([String]) throws -> Void {
            { links in
                for link in links {
                    let pid = try Subprocess.spawn(
                        argv + [link], environment: w.environment, stdout: .null, stderr: .null)
                    Subprocess.wait(pid)
                }
            }
        }
        let total = n(100, 5)
        let cold = n(20, 2)
        _ = try deliver("warm", mimeapps: straight, count: 1, eachProcess(["gio", "open"]))
        var results: [(String, Int, Int, Bool, Bool?)] = []
        for (label, launcher) in [
            ("`gio open`", eachProcess(["gio", "open"])),
            ("a program that launches with GIO's synchronous API and exits", eachProcess(syncExit)),
        ] {
            let r = try deliver(label, mimeapps: straight, count: total, launcher)
            results.append(
                (
                    "GIO → a D-Bus-activatable app, running: " + label, r.arrived, total, r.clean,
                    r.arrived == total && r.clean
                ))
        }
        let stays = try deliver(
            "long", mimeapps: straight, count: total,
            { links in
                let pid = try Subprocess.spawn(
                    ["/usr/bin/python3", "-c", longRunning] + links, environment: w.environment, stdout: .null,
                    stderr: .null)
                Subprocess.wait(pid)
            })
        results.append(
            (
                "GIO → a D-Bus-activatable app, running: one long-running program, the asynchronous API", stays.arrived,
                total, stays.clean, stays.arrived == total && stays.clean
            ))
        let activated = try deliver("cold", mimeapps: straight, count: cold, stopApp: true, eachProcess(syncExit))
        results.append(
            (
                "GIO → a D-Bus-activatable app, not running (D-Bus activation): the synchronous API, then exit",
                activated.arrived, cold, activated.clean, activated.arrived == cold && activated.clean
            ))
        let shipped = try deliver("shipped", mimeapps: viaLinkrouter, count: total, eachProcess(syncExit))
        results.append(
            (
                "linkrouter's entry as shipped (`Exec=linkctl open`): the synchronous API, then exit → linkctl → the app",
                shipped.arrived, total, shipped.clean, nil
            ))
        app.stop()
        for (figure, arrived, of, clean, met) in results {
            row(
                figure + (clean ? "" : " (not once each in order)"), value: Double(arrived), unit: "of \(of) arrived",
                floor: nil,
                goal: met == nil
                    ? "every one (what linkrouter does today)"
                    : "\(of) of \(of), once each, in order (the condition for a D-Bus-activatable linkrouter entry)",
                met: met ?? (arrived == of && clean))
        }
    }

    /// The links of `batch` the bench app has opened, in the order it opened them.
    private func opened(in record: String, batch: Int) -> [String] {
        let prefix = "com.example.bench:/\(batch)/"
        let text: String = (try? FileSystem.readText(record)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard
                let start = line.firstRange(of: "\"uri\": \"")?.upperBound
                    ?? line.firstRange(of: "\"uri\":\"")?.upperBound
            else { return nil }
            let uri = line[start...].prefix { $0 != "\"" }
            return uri.hasPrefix(prefix) ? String(uri) : nil
        }
    }
}
