import DBusKit
import Glibc
import LinkRouterAPI
import LinkRouterCore
import SystemKit
import Testing

/// Threat model, "Resource exhaustion" (X1–X3).
@Suite("Threat model X: exhaustion")
struct ExhaustionThreatTests {
    @Test("X1: a flood of launches is rate-limited with a summarising log line; the queue with no daemon is bounded")
    func x1() throws {
        let h = try Harness(daemonArguments: ["--max-routes-per-second", "50"])
        // A burst: 100 calls sent before any answer is read (`BusClient.burst`).
        let answers = try h.app.burst(
            "Route", (0..<100).map { [.string("com.example.app:/callback?code=c&state=flood\($0)")] })
        #expect(
            answers.allSatisfy { $0 == errorPrefix + "LimitsExceeded" || $0 == errorPrefix + "UnknownState" },
            "\(Set(answers.map { $0 ?? "ok" }))")
        let limited = answers.filter { $0 == errorPrefix + "LimitsExceeded" }.count
        // What the callers heard is what the limiter counted, link for link, and the burst was
        // refused in part (100 links at 50 a second: all would be admitted only if the daemon
        // took two seconds over them).
        #expect(try h.app.counter("links_flooded") == UInt64(limited))
        #expect(limited > 0 && limited < 100, "\(limited) refused")
        // The refusals' log lines were capped: the rest were counted, not written.
        #expect(try h.app.counter("log_lines_suppressed") > 0)
        #expect(h.daemonAnswers)
        // No daemon at all: the inbox takes 256 links, then refuses.
        h.daemon.stop()
        h.desktop.extraEnvironment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=" + h.desktop.root + "/gone"
        let inbox = h.desktop.runtimeDir + "/linkrouter/inbox"
        try FileSystem.ensurePrivateDirectory(inbox)
        for i in 0..<256 {
            try FileSystem.writeAtomically(
                inbox + "/\(String(i).leftPadded(20))-1-x.link", text: "com.example.app:/x?state=\(i)\n")
        }
        let r = try h.desktop.linkctl("open", "--", "com.example.app:/callback?state=one-more")
        #expect(r.status == 69 && r.errorText.contains("256"))
    }

    @Test("X2: BeginSession floods hit the per-client and global caps (LimitsExceeded); finished sessions do not count")
    func x2() throws {
        let h = try Harness(daemonArguments: ["--max-pending-per-client", "4", "--max-pending", "6"])
        var sessions: [(path: String, url: String)] = []
        for _ in 0..<4 { sessions.append(try h.app.beginQuiet()) }
        try h.expectRefusal(errorPrefix + "LimitsExceeded") { _ = try h.app.beginQuiet() }
        let others = try (0..<3).map { _ in try h.client() }
        _ = try others[0].beginQuiet()
        _ = try others[1].beginQuiet()
        try h.expectRefusal(errorPrefix + "LimitsExceeded") { _ = try others[2].beginQuiet() }
        _ = try h.app.route("com.example.app:/callback?code=c&state=\(Harness.state(of: sessions[0].url))")
        _ = try h.app.beginQuiet()
        // Arguments are capped by the daemon, not left to the bus's ~128 MiB message limit.
        try h.expectRefusal(errorPrefix + "InvalidArgument") {
            _ = try others[2].begin(
                BeginSessionRefusalTests.with("scope", .string(String(repeating: "s", count: 10_000))))
        }
    }

    @Test(
        "X3: a connection flood on the loopback listener (wrk) does not stop the legitimate callback; logging stays bounded"
    )
    func x3() throws {
        let h = try Harness()
        let (path, url) = try h.app.beginQuiet(redirect: "http://127.0.0.1/cb")
        let redirect = try PercentEncoding.decode(Substring(url.queryValue("redirect_uri")!), form: true)
        let base = String(redirect.dropLast(3))
        let wrk = try Subprocess.spawn(
            ["wrk", "-t", "1", "-c", "16", "-d", "4s", base + "/favicon.ico"],
            stdout: .file(h.desktop.root + "/wrk.out"), stderr: .null)
        // The flood is on once wrk holds its 16 connections to the listener.
        let port = String(redirect.split(separator: ":").last!.prefix { $0.isNumber })
        #expect(
            eventually(timeoutMilliseconds: 3000) {
                let ss =
                    (try? Subprocess.run(["ss", "-Htn", "state", "established", "( dport = :\(port) )"]).text) ?? ""
                return ss.split(separator: "\n").count >= 16
            })
        #expect(
            eventually(timeoutMilliseconds: 3000) {
                (try? h.desktop.run([
                    "curl", "-s", "-o", "/dev/null", "--max-time", "2", "-w", "%{http_code}",
                    "\(redirect)?code=under-flood&state=\(Harness.state(of: url))",
                ]).text) == "200"
            })
        Subprocess.wait(wrk, timeoutMilliseconds: 60_000)
        #expect(try h.app.wait(path)["code"] == "under-flood")
        let requests =
            (try FileSystem.readText(h.desktop.root + "/wrk.out")).split(separator: "\n").first {
                $0.contains("requests in")
            } ?? ""
        #expect(!requests.isEmpty, "wrk did not run")
        #expect(h.daemon.log.components(separatedBy: "\n").count < 50)
    }
}

extension String {
    func leftPadded(_ n: Int) -> String { String(repeating: "0", count: max(0, n - count)) + self }
}
