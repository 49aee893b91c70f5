import Glibc
import JSONKit
import LinkRouterCore
import SystemKit

/// A whole real-browser login (issue 15): headless Chromium at Debian's
/// Glewlwyd, driven as a person would (the tests' browser_login.py), from the
/// click on "sign in" until the code is in the app, through linkrouter
/// (`linkctl login`, custom scheme and loopback), beside the floor: the same
/// browser and provider with the app's own one-shot loopback listener (Python's
/// `http.server`, as google-auth-oauthlib does), in the same run, interleaved.
extension Bench {
    func realBrowserLogin() throws {
        guard
            ["/usr/lib/chromium/chromium", "/usr/bin/chromedriver", "/usr/bin/glewlwyd"].allSatisfy(
                FileSystem.isExecutable)
        else {
            say(
                "real-browser login skipped: chromium, chromium-driver or glewlwyd not installed (scripts/setup --test installs them)"
            )
            return
        }
        say("a whole real-browser login, click on sign in → code in the app")
        let w = try world("realbrowser")
        try w.startDaemon()
        guard try w.run([bin + "/linkctl", "register", "com.example.app"]).status == 0 else {
            throw BenchError("register failed")
        }
        let viaPort = try freeLoopbackPort()
        let floorPort = try freeLoopbackPort()
        let custom = "com.example.app:/callback"
        let viaLoopback = "http://127.0.0.1:\(viaPort)/callback"
        let floorRedirect = "http://127.0.0.1:\(floorPort)/callback"
        let customFloorRedirect = "com.example.floor:/callback"
        let provider = try BenchProvider(
            w, fixtures: fixtures, redirectURIs: [custom, viaLoopback, floorRedirect, customFloorRedirect])
        // Glewlwyd lives until the section ends, not until the value's last use.
        defer { withExtendedLifetime(provider) {} }
        let endpoint = try provider.string("authorization_endpoint")
        let user = try provider.string("username")
        let password = try provider.string("password")
        let providerInfo = provider.infoPath
        let steps = w.root + "/browser.jsonl"
        let printed = w.root + "/login.out"
        var run = 0
        /// A fresh profile each time: every login shows the form, as a first sign-in does.
        func browserArgs() -> [String] {
            run += 1
            return [
                "/usr/bin/python3", fixtures + "/browser_login.py", "--browser", "chromium", "--profile",
                w.root + "/profile-\(run)",
                "--username", user, "--password=" + password, "--out", steps, "--timeout", "90",
            ]
        }
        var tails: [String: [Double]] = [:]
        /// Milliseconds from the click on "sign in" (the browser's mark) to `codeAt` (wall
        /// clock); the part after the provider's 302 reached the browser goes to `tails`.
        func fromSignIn(codeAt: Double, _ name: String) throws -> Double {
            let lines = ((try? FileSystem.readText(steps)) ?? "").split(separator: "\n")
            guard let last = lines.last, let step = try? JSONParser.parse(Array(last.utf8)), step["ok"] == .bool(true),
                let start = step["navigation_started_at"]?.double,
                let click = step["timings"]?["login_submitted"]?.double,
                let redirect = step["timings"]?["redirect_received"]?.double
            else {
                throw BenchError("the browser did not finish its login: \(lines.last ?? "nothing")")
            }
            tails[name, default: []].append((codeAt - (start + redirect)) * 1000)
            return (codeAt - (start + click)) * 1000
        }
        /// Through linkrouter: `linkctl login` opens the entry whose "browser" is the driven one.
        func viaLinkrouter(_ redirect: String, _ name: String) throws -> Double {
            try FileSystem.writeAtomically(
                w.applications + "/driven.desktop",
                text: """
                    [Desktop Entry]
                    Type=Application
                    Name=Chromium, driven
                    Exec=\(browserArgs().joined(separator: " ")) --wait-file \(printed) --url %u

                    """, permissions: 0o644)
            let before = ((try? FileSystem.readText(steps)) ?? "").split(separator: "\n").count
            let pid = try Subprocess.spawn(
                [
                    bin + "/linkctl", "login", "--json", "--authorization-endpoint", endpoint, "--client-id",
                    "com.example.app",
                    "--redirect-uri", redirect, "--scope", "openid", "--browser", "driven.desktop",
                ],
                environment: w.environment, stdout: .file(printed), stderr: .file(printed + ".err"))
            guard Subprocess.wait(pid) == 0 else {
                throw BenchError("linkctl login failed: \((try? FileSystem.readText(printed + ".err")) ?? "")")
            }
            let codeAt = Measure.wallSeconds()
            return try awaitBrowser(after: before) { try fromSignIn(codeAt: codeAt, name) }
        }
        /// The floor: the app's own listener catches the redirect; the browser is started by the app.
        func floor() throws -> Double {
            let authorize = try w.run([
                "/usr/bin/python3", fixtures + "/oidc_client.py", "authorize", "--provider", providerInfo,
                "--redirect-uri", floorRedirect,
            ])
            guard authorize.status == 0,
                let url = (try? JSONParser.parse(Array(authorize.text.utf8)))?["url"]?.stringValue
            else {
                throw BenchError("oidc_client authorize: \(authorize.errorText)")
            }
            let caught = w.root + "/catcher.out"
            let catcher = try Subprocess.spawn(
                ["/usr/bin/python3", fixtures + "/loopback_catcher.py", "--port", "\(floorPort)", "--timeout", "90"],
                environment: w.environment, stdout: .file(caught), stderr: .file(caught + ".err"))
            guard w.wait({ ((try? FileSystem.readText(caught)) ?? "").contains("listening") }) else {
                throw BenchError("loopback_catcher did not start")
            }
            let count = ((try? FileSystem.readText(steps)) ?? "").split(separator: "\n").count
            let browser = try Subprocess.spawn(
                browserArgs() + ["--url", url], environment: w.environment, stdout: .null,
                stderr: .file(w.root + "/floor-browser.err"))
            guard Subprocess.wait(catcher) == 0 else {
                throw BenchError("the catcher got no redirect: \((try? FileSystem.readText(caught + ".err")) ?? "")")
            }
            // When its handler had the code and had answered (its own clock: the catcher's
            // shutdown polls every 200 ms, which an app that carries on never pays).
            guard let line = ((try? FileSystem.readText(caught)) ?? "").split(separator: "\n").last,
                let got = try? JSONParser.parse(Array(line.utf8)), let at = got["received_at"]?.double,
                let served = got["served_seconds"]?.double
            else {
                throw BenchError("the catcher printed no result")
            }
            let codeAt = at + served
            Subprocess.wait(browser)
            return try awaitBrowser(after: count) { try fromSignIn(codeAt: codeAt, "floor") }
        }
        /// The custom-scheme floor: the app's own desktop entry handles its scheme (a
        /// shell script that notes the time and the link), as apps do without linkrouter.
        let handled = w.root + "/handled.txt"
        let handler = w.root + "/bin/app-handler"
        try FileSystem.writeAtomically(
            handler, text: "#!/bin/sh\necho \"$(date +%s.%N) $1\" >> \(handled)\n", permissions: 0o755)
        try FileSystem.writeAtomically(
            w.applications + "/app-own-handler.desktop",
            text: """
                [Desktop Entry]
                Type=Application
                Name=The app's own handler
                Exec=\(handler) %u
                NoDisplay=true
                MimeType=x-scheme-handler/com.example.floor;

                """, permissions: 0o644)
        guard
            try w.run(["xdg-mime", "default", "app-own-handler.desktop", "x-scheme-handler/com.example.floor"]).status
                == 0
        else {
            throw BenchError("xdg-mime default failed")
        }
        func customFloor() throws -> Double {
            let authorize = try w.run([
                "/usr/bin/python3", fixtures + "/oidc_client.py", "authorize", "--provider", providerInfo,
                "--redirect-uri", customFloorRedirect,
            ])
            guard authorize.status == 0,
                let url = (try? JSONParser.parse(Array(authorize.text.utf8)))?["url"]?.stringValue
            else {
                throw BenchError("oidc_client authorize: \(authorize.errorText)")
            }
            let count = ((try? FileSystem.readText(steps)) ?? "").split(separator: "\n").count
            let browser = try Subprocess.spawn(
                browserArgs() + ["--wait-file", handled, "--url", url], environment: w.environment,
                stdout: .null, stderr: .file(w.root + "/floor-browser.err"))
            Subprocess.wait(browser)
            guard let line = ((try? FileSystem.readText(handled)) ?? "").split(separator: "\n").last,
                let at = line.split(separator: " ").first.flatMap({ Double($0) })
            else { throw BenchError("the app's handler never ran") }
            return try awaitBrowser(after: count) { try fromSignIn(codeAt: at, "custom floor") }
        }
        /// Waits for the browser's result line (it closes after the code is in), then measures.
        func awaitBrowser(after count: Int, _ measure: () throws -> Double) throws -> Double {
            guard
                w.wait(
                    { ((try? FileSystem.readText(steps)) ?? "").split(separator: "\n").count > count },
                    milliseconds: 60_000)
            else {
                throw BenchError("the browser never reported its login")
            }
            return try measure()
        }
        var samples: [String: [Double]] = [:]
        for _ in 0..<n(8, 1) {
            samples["floor", default: []].append(try floor())
            samples["custom floor", default: []].append(try customFloor())
            samples["custom", default: []].append(try viaLinkrouter(custom, "custom"))
            samples["loopback", default: []].append(try viaLinkrouter(viaLoopback, "loopback"))
        }
        for (name, xs) in samples.sorted(by: { $0.key < $1.key }) {
            say(
                "\(name): whole \(xs.map { Measure.format($0, 0) }.joined(separator: " ")) ms; after the 302 \(tails[name, default: []].map { Measure.format($0, 0) }.joined(separator: " ")) ms"
            )
        }
        let runs = samples["floor"]!.count
        func report(_ name: String, _ label: String, floor: String, _ floorLabel: String) {
            let v = Measure.median(samples[name]!)
            let f = Measure.median(samples[floor]!)
            row(
                "real-browser login through linkrouter, \(label): sign-in click → code in `linkctl login` (median of \(runs))",
                value: v, unit: "ms",
                floor: f, goal: "≤ 1.05× (floor: \(floorLabel))", met: smoke ? nil : v / f <= 1.05)
            row(
                "… of which after the provider's 302 reached the browser", value: Measure.median(tails[name]!),
                unit: "ms",
                floor: Measure.median(tails[floor]!), goal: "linkrouter's part, beside the floor's", met: nil)
        }
        report(
            "loopback", "loopback (the daemon's listener)", floor: "floor",
            "the app's own `http.server` listener, as google-auth-oauthlib")
        report(
            "custom", "custom scheme (Chromium → xdg-open → `linkctl open`)", floor: "custom floor",
            "the app's own desktop entry for its scheme")
    }

    /// A loopback port free right now (the provider registers exact ports).
    func freeLoopbackPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var sa = sockaddr_in()
        sa.sin_family = sa_family_t(AF_INET)
        sa.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        _ = withUnsafePointer(to: &sa) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &sa) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        let port = Int(UInt16(bigEndian: sa.sin_port))
        guard port > 0 else { throw BenchError("no free loopback port") }
        return port
    }
}

extension JSONValue {
    /// A number of either kind, as a `Double`.
    var double: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .number(let d): return d
        default: return nil
        }
    }
}
