import DBusKit
import Glibc
import LinkRouterAPI
import SystemKit
import Testing

/// The daemon as a process: one per bus, clean stops, journald-style logs
/// without secrets, and no bad call that takes it down.
@Suite("Daemon lifecycle")
struct DaemonLifecycleTests {
    @Test("a second daemon refuses to start while the name is taken, and says who has it")
    func nameTaken() throws {
        let h = try Harness()
        let second = try DaemonProcess(desktop: h.desktop, waitForName: false, logName: "second.log")
        #expect(second.waitForExit() == 1)
        #expect(
            second.log.contains(
                "<3>Another program already owns org.linkrouter.LinkRouter1 (pid \(h.daemon.pid)); not starting a second linkrouterd"
            ))
        #expect(h.daemonAnswers)
    }

    @Test("SIGTERM stops it cleanly; a pending Wait is answered first")
    func sigterm() throws {
        let h = try Harness()
        let (path, _) = try h.app.beginQuiet()
        let m = DBusMessage.methodCall(API.busName, ObjectPath(path)!, API.sessionInterface, "Wait")
        try m.append(.uint32(0))
        try h.app.connection.send(m)
        // Calls from one connection are handled in order: once this one is answered, the Wait is parked.
        try h.app.barrier()
        #expect(h.daemon.stop() == 0)
        let reply = try #require(eventuallyMessage(h.app) { $0.replySerial == m.serial })
        #expect(reply.error?.name == errorPrefix + "Timeout")
    }

    @Test("every log line has a journald priority; a whole flow logs neither code nor verifier nor state")
    func logs() throws {
        let h = try Harness()
        let (path, url) = try h.app.beginQuiet()
        let state = Harness.state(of: url)
        _ = try h.app.route("com.example.app:/callback?code=THE-SECRET-CODE-42&state=\(state)")
        let result = try h.app.wait(path)
        _ = dbusError { _ = try h.app.route("com.example.app:/callback?code=THE-SECRET-CODE-42&state=\(state)") }
        _ = dbusError { _ = try h.app.route("com.example.app:/callback?code=x&state=\(state)x") }
        h.daemon.stop()
        let log = h.daemon.log
        #expect(!log.isEmpty)
        for line in log.split(separator: "\n") {
            #expect(line.first == "<" && line.dropFirst().first.map { "34567".contains($0) } == true, "\(line)")
        }
        for secret in ["THE-SECRET-CODE-42", result["code_verifier"]!, state, result["nonce"]!] {
            #expect(!log.contains(secret), "the log holds a secret")
        }
        #expect(log.contains("Refused link"))
    }

    @Test("core dumps are off for the daemon (P4)")
    func noCoreDumps() throws {
        let h = try Harness()
        let limits = try FileSystem.readText("/proc/\(h.daemon.pid)/limits")
        let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") })
        #expect(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).prefix(2) == ["0", "0"])
    }

    @Test("odd and hostile calls never take it down (D6, D7)")
    func survives() throws {
        let h = try Harness()
        let (path, _) = try h.app.beginQuiet()
        let calls: [(String, [DBusValue], String, String)] = [
            (
                "BeginSession", [.vardict([("client_id", .string(String(repeating: "é", count: 300_000)))])],
                API.managerPath.rawValue, API.managerInterface.rawValue
            ),
            (
                "Route", [.string(String(repeating: "a", count: 1_000_000))], API.managerPath.rawValue,
                API.managerInterface.rawValue
            ),
            (
                "Route", [.string("com.example.app:/cb?state=\u{FFFF}\u{10FFFF}")], API.managerPath.rawValue,
                API.managerInterface.rawValue
            ),
            ("Wait", [.string("x")], path, API.sessionInterface.rawValue),
            (
                "Wait", [.uint32(UInt32.max)], "/org/linkrouter/LinkRouter1/sessions/deadbeef",
                API.sessionInterface.rawValue
            ),
            ("Claim", [.string("")], path, API.sessionInterface.rawValue),
            ("Get", [.string(""), .string("")], path, API.propertiesInterface.rawValue),
            ("GetAll", [.string("org.nope")], API.managerPath.rawValue, API.propertiesInterface.rawValue),
            ("Introspect", [.string("x")], "/", API.introspectableInterface.rawValue),
            ("Explain", [.string("\u{7}")], API.managerPath.rawValue, API.managerInterface.rawValue),
            (
                "BeginSession", [.vardict([("extra_params", .stringDict((0..<500).map { ("k\($0)", "v") }))])],
                API.managerPath.rawValue, API.managerInterface.rawValue
            ),
            (
                "BeginSession", [.vardict([("resume_hosts", .stringArray((0..<500).map { "h\($0).example" }))])],
                API.managerPath.rawValue, API.managerInterface.rawValue
            ),
        ]
        for (member, args, p, i) in calls {
            _ = dbusError { _ = try h.app.call(member, args, path: p, interface: i) }
            #expect(h.daemonAnswers, "after \(member)")
        }
        #expect(try h.app.status(path) == "pending")
        // A call asking for no reply gets none, and still does its work.
        let m = DBusMessage.methodCall(API.busName, ObjectPath(path)!, API.sessionInterface, "Cancel")
        m.noReplyExpected = true
        try h.app.connection.send(m)
        #expect(eventually { (try? h.app.status(path)) == "cancelled" })
    }

    @Test("runtime introspection is exactly the XML in docs/dbus-api.md")
    func introspectionMatchesDocs() throws {
        let h = try Harness()
        let (path, _) = try h.app.beginQuiet()
        let docs = try FileSystem.readText(Paths.root + "/docs/dbus-api.md")
        #expect(
            docs.xmlBlock(after: "<!-- manager-introspection -->") == (try h.app.introspect(API.managerPath.rawValue)))
        #expect(docs.xmlBlock(after: "<!-- session-introspection -->") == (try h.app.introspect(path)))
    }
}

extension String {
    /// The body of the ```xml block that follows `marker`.
    func xmlBlock(after marker: String) -> String? {
        guard let m = firstRange(of: marker), let open = self[m.upperBound...].firstRange(of: "```xml\n"),
            let close = self[open.upperBound...].firstRange(of: "```")
        else { return nil }
        return String(self[open.upperBound..<close.lowerBound])
    }
}
