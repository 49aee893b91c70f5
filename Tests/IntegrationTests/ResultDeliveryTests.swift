import DBusKit
import Glibc
import LinkRouterAPI
import SystemKit
import Testing

/// A method reply cannot be confirmed, so "delivered" never means "sent
/// once" (issue 13 §1): the owner's result stays until it says it has it
/// (`Acknowledge`), leaves the bus for good, or the grace period passes.
@Suite("Result delivery: no lost codes")
struct ResultDeliveryTests {
    func sendWait(_ client: BusClient, _ path: String, timeout: UInt32 = 0) throws -> DBusMessage {
        let m = DBusMessage.methodCall(API.busName, ObjectPath(path)!, API.sessionInterface, "Wait")
        try m.append(.uint32(timeout))
        try client.connection.send(m)
        return m
    }

    @Test("an abandoned Wait (its caller's call timed out) swallows nothing: the next Wait gets the code")
    func abandonedWait() throws {
        let h = try Harness()
        let (path, url) = try h.app.beginQuiet()
        // The app's binding gives up on Wait(0) long before the user signs in (25 s by default; 300 ms here).
        let m = DBusMessage.methodCall(API.busName, ObjectPath(path)!, API.sessionInterface, "Wait")
        try m.append(.uint32(0))
        #expect(dbusError { _ = try h.app.connection.call(m, timeoutMilliseconds: 300) }?.name == DBusError.noReply)
        #expect(
            try h.app.route("com.example.app:/callback?code=not-lost&state=\(Harness.state(of: url))") == "completed")
        // The daemon answered the abandoned call (the reply went nowhere); the result is still there.
        #expect(try h.app.wait(path, timeoutMilliseconds: 3000)["code"] == "not-lost")
        #expect(try h.app.wait(path, timeoutMilliseconds: 3000)["code"] == "not-lost")
    }

    @Test("every Wait parked when the result arrives is answered with it")
    func everyParkedWait() throws {
        let h = try Harness()
        let (path, url) = try h.app.beginQuiet()
        let waits = try (0..<3).map { _ in try sendWait(h.app, path) }
        try h.app.barrier()
        #expect(try h.app.route("com.example.app:/callback?code=all&state=\(Harness.state(of: url))") == "completed")
        for m in waits {
            let reply = try #require(eventuallyMessage(h.app) { $0.replySerial == m.serial })
            let result = try #require(try reply.arguments().first?.stringKeyedEntries)
            #expect(result.first { $0.0 == "code" }?.1.variantValue == .string("all"))
        }
    }

    @Test("Acknowledge releases the result at once: wiped from memory and the store; a later Wait says so")
    func acknowledge() throws {
        let h = try Harness()
        let (path, url) = try h.app.beginQuiet()
        try h.expectRefusal(errorPrefix + "InvalidArgument") {
            _ = try h.app.call("Acknowledge", path: path, interface: API.sessionInterface.rawValue)
        }
        #expect(
            try h.app.route("com.example.app:/callback?code=ACK-SECRET&state=\(Harness.state(of: url))") == "completed")
        let other = try h.client()
        try h.expectRefusal(errorPrefix + "AccessDenied") {
            _ = try other.call("Acknowledge", path: path, interface: API.sessionInterface.rawValue)
        }
        let verifier = try #require(try h.app.wait(path)["code_verifier"])
        _ = try h.app.call("Acknowledge", path: path, interface: API.sessionInterface.rawValue)
        let e = try #require(dbusError { _ = try h.app.wait(path) })
        #expect(e.name == errorPrefix + "AlreadyDelivered" && e.message.contains("acknowledged"))
        #expect(try h.app.status(path) == "completed")
        // Twice is nothing.
        _ = try h.app.call("Acknowledge", path: path, interface: API.sessionInterface.rawValue)
        // Gone from the files too, once the WAL is folded.
        let db = h.desktop.runtimeDir + "/linkrouter/sessions.sqlite3"
        #expect(eventually(timeoutMilliseconds: 10_000) { FileSystem.status(db + "-wal")?.size == 0 })
        h.daemon.stop(signal: SIGKILL)
        let dump = try h.desktop.run(["sh", "-c", "cat \"$1\" \"$1-wal\" 2>/dev/null", "sh", db])
        #expect(!dump.text.contains("ACK-SECRET") && !dump.text.contains(verifier))
    }

    @Test("a result nobody acknowledges is released when the grace period ends")
    func retention() throws {
        let h = try Harness(daemonArguments: ["--grace-period", "1"])
        let (path, url) = try h.app.beginQuiet()
        #expect(
            try h.app.route("com.example.app:/callback?code=kept-a-while&state=\(Harness.state(of: url))")
                == "completed")
        #expect(try h.app.wait(path)["code"] == "kept-a-while")
        #expect(
            eventually(timeoutMilliseconds: 5000) {
                dbusError { _ = try h.app.wait(path) }?.name == errorPrefix + "AlreadyDelivered"
            })
        #expect(try h.app.status(path) == "completed", "the record stays for its ttl, to tell a replay from a forgery")
        try h.expectRefusal(errorPrefix + "Replayed") {
            _ = try h.app.route("com.example.app:/callback?code=again&state=\(Harness.state(of: url))")
        }
    }

    @Test("a client that restarts claims its session and still gets the result it never saw")
    func claimAfterRestart() throws {
        let h = try Harness()
        let token = String(repeating: "t", count: 32)
        var first: BusClient? = try h.client()
        let (path, url) = try first!.beginQuiet(extra: [("claim_token", .string(token))])
        #expect(
            try h.app.route("com.example.app:/callback?code=for-later&state=\(Harness.state(of: url))") == "completed")
        first = nil
        let second = try h.client()
        #expect(
            eventually {
                (try? second.call("Claim", [.string(token)], path: path, interface: API.sessionInterface.rawValue))
                    != nil
            })
        #expect(try second.wait(path)["code"] == "for-later")
    }

    @Test("gdbus call Login: one call on one connection does the whole login (the README's example)")
    func gdbusLogin() throws {
        let h = try Harness()
        let out = h.desktop.root + "/gdbus.out"
        // --timeout above the session's ttl: the documented remedy for gdbus's 25 s default.
        let pid = try Subprocess.spawn(
            [
                "gdbus", "call", "--session", "--timeout", "660", "--dest", "org.linkrouter.LinkRouter1",
                "--object-path", "/org/linkrouter/LinkRouter1",
                "--method", "org.linkrouter.LinkRouter1.Login",
                "{'authorization_endpoint': <'https://auth.example.com/authorize'>, 'client_id': <'demo'>, 'redirect_uri': <'com.example.app:/callback'>, 'scope': <'openid'>}",
            ], environment: h.desktop.environment, stdout: .file(out), stderr: .file(out + ".err"))
        let opened = h.desktop.waitForBrowser(Harness.browser)
        let authorize = try #require(opened.first)
        #expect(
            try h.desktop.xdgOpen("com.example.app:/callback?code=from-gdbus&state=\(Harness.state(of: authorize))")
                .status == 0)
        #expect(
            Subprocess.wait(pid, timeoutMilliseconds: 60_000) == 0, "\((try? FileSystem.readText(out + ".err")) ?? "")")
        let text = try FileSystem.readText(out)
        #expect(text.hasPrefix("(objectpath '/org/linkrouter/LinkRouter1/sessions/"))
        #expect(text.contains("'code': <'from-gdbus'>") && text.contains("'code_verifier': <'"))
    }
}
