import DBusKit
import Glibc
import LinkRouterAPI
import SystemKit
import Testing

/// Sessions over time: waits, timeouts, cancels, expiry, owners leaving,
/// the intruder, and what the bus is told.
@Suite("Session lifecycle")
struct SessionLifecycleTests {
    @Test("an intruder can neither wait, cancel, claim nor list another's session (D1)")
    func intruder() throws {
        let h = try Harness()
        let (path, url) = try h.app.beginQuiet()
        let intruder = try h.client()
        try h.expectRefusal(errorPrefix + "AccessDenied") { _ = try intruder.wait(path, timeoutMilliseconds: 100) }
        try h.expectRefusal(errorPrefix + "AccessDenied") {
            _ = try intruder.call("Cancel", path: path, interface: API.sessionInterface.rawValue)
        }
        try h.expectRefusal(errorPrefix + "AccessDenied") {
            _ = try intruder.call(
                "Claim", [.string(String(repeating: "t", count: 43))], path: path,
                interface: API.sessionInterface.rawValue)
        }
        guard case .array(_, let mine) = try intruder.call("ListSessions")[0] else {
            Issue.record("no array")
            return
        }
        #expect(mine.isEmpty)
        #expect(try h.app.route("com.example.app:/callback?code=c&state=\(Harness.state(of: url))") == "completed")
        try h.expectRefusal(errorPrefix + "AccessDenied") { _ = try intruder.wait(path) }
        #expect(try h.app.wait(path)["code"] == "c")
    }

    @Test("Wait times out without touching the session; Cancel ends it for every waiter")
    func waitAndCancel() throws {
        let h = try Harness()
        let (path, url) = try h.app.beginQuiet()
        try h.expectRefusal(errorPrefix + "Timeout") { _ = try h.app.wait(path, timeoutMilliseconds: 150) }
        #expect(try h.app.status(path) == "pending")
        // A deferred Wait, then Cancel from the same connection: the wait is answered Cancelled.
        let m = DBusMessage.methodCall(API.busName, ObjectPath(path)!, API.sessionInterface, "Wait")
        try m.append(.uint32(0))
        try h.app.connection.send(m)
        // Calls from one connection are handled in order, so the Wait is parked before the Cancel.
        _ = try h.app.call("Cancel", path: path, interface: API.sessionInterface.rawValue)
        let reply = try #require(eventuallyMessage(h.app) { $0.replySerial == m.serial })
        #expect(reply.error?.name == errorPrefix + "Cancelled")
        #expect(try h.app.status(path) == "cancelled")
        try h.expectRefusal(errorPrefix + "Cancelled") {
            _ = try h.app.route("com.example.app:/callback?code=c&state=\(Harness.state(of: url))")
        }
    }

    @Test("a session expires at its ttl: Status, Wait and Route all say so (S7)")
    func expiry() throws {
        let h = try Harness()
        let (path, url) = try h.app.beginQuiet(extra: [("ttl", .uint32(1))])
        let (later, _) = try h.app.beginQuiet(extra: [("ttl", .uint32(101))])
        func expiresAt(_ p: String) throws -> UInt64? {
            let v = try h.app.call(
                "Get", [.string(API.sessionInterface.rawValue), .string("ExpiresAt")], path: p,
                interface: API.propertiesInterface.rawValue)
            if case .uint64(let at)? = v.first?.variantValue { return at }
            return nil
        }
        // ExpiresAt is the beginning plus the ttl: two sessions begun one after the other are
        // 100 s apart in it (101 when a second ticked between the two calls); no clock is read here.
        let (a, b) = (try #require(try expiresAt(path)), try #require(try expiresAt(later)))
        #expect(b - a == 100 || b - a == 101, "\(a) \(b)")
        #expect(errorName { _ = try h.app.wait(path, timeoutMilliseconds: 4000) } == errorPrefix + "Expired")
        #expect(try h.app.status(path) == "expired")
        try h.expectRefusal(errorPrefix + "Expired") {
            _ = try h.app.route("com.example.app:/callback?code=c&state=\(Harness.state(of: url))")
        }
    }

    @Test("PropertiesChanged tells the owner each status change, and carries no secret")
    func propertiesChanged() throws {
        let h = try Harness()
        try h.app.subscribe("type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'")
        let (path, url) = try h.app.beginQuiet()
        _ = try h.client().route("com.example.app:/callback?code=SECRETCODE&state=\(Harness.state(of: url))")
        let signal = try #require(h.app.nextSignal(member: "PropertiesChanged"))
        #expect(signal.path == path)
        let args = try signal.arguments()
        #expect(args[0].stringValue == API.sessionInterface.rawValue)
        #expect(args[1].stringKeyedEntries?.first?.0 == "Status")
        #expect(args[1].stringKeyedEntries?.first?.1.variantValue?.stringValue == "completed")
        #expect(args[1].stringKeyedEntries?.count == 1)
    }

    @Test("an owner leaving cancels its session; with a claim token it is parked for Claim (D2)")
    func ownerLeaves() throws {
        let h = try Harness()
        var gone: BusClient? = try h.client()
        let (plain, _) = try gone!.beginQuiet()
        let token = String(repeating: "k", count: 43)
        let (parked, url) = try gone!.beginQuiet(extra: [("claim_token", .string(token))])
        gone = nil
        #expect(eventually { (try? h.app.status(plain)) == "cancelled" })
        #expect(try h.app.status(parked) == "pending")
        let heir = try h.client()
        try h.expectRefusal(errorPrefix + "AccessDenied") {
            _ = try heir.call("Claim", [.string(token + "x")], path: parked, interface: API.sessionInterface.rawValue)
        }
        _ = try heir.call("Claim", [.string(token)], path: parked, interface: API.sessionInterface.rawValue)
        _ = try h.app.route("com.example.app:/callback?code=c&state=\(Harness.state(of: url))")
        #expect(try heir.wait(parked)["code"] == "c")
    }

    @Test("sessions are objects with properties; introspection walks the tree")
    func objects() throws {
        let h = try Harness()
        let (path, _) = try h.app.beginQuiet(extra: [("app_callback_uri", .string("com.example.app:/app"))])
        let all = try h.app.call(
            "GetAll", [.string(API.sessionInterface.rawValue)], path: path, interface: API.propertiesInterface.rawValue)[
                0]
        let props = Dictionary(uniqueKeysWithValues: (all.stringKeyedEntries ?? []).map { ($0.0, $0.1.variantValue!) })
        #expect(props["Status"] == .string("pending"))
        #expect(props["RedirectUri"] == .string("com.example.app:/callback"))
        #expect(props["AppCallbackUri"] == .string("com.example.app:/app"))
        #expect(props["Browser"] == .string(""))
        try h.expectRefusal("org.freedesktop.DBus.Error.PropertyReadOnly") {
            _ = try h.app.call(
                "Set", [.string(API.sessionInterface.rawValue), .string("Status"), .variant(.string("completed"))],
                path: path, interface: API.propertiesInterface.rawValue)
        }
        try h.expectRefusal("org.freedesktop.DBus.Error.UnknownProperty") {
            _ = try h.app.call(
                "Get", [.string(API.sessionInterface.rawValue), .string("Code")], path: path,
                interface: API.propertiesInterface.rawValue)
        }
        #expect(try h.app.introspect("/").contains("<node name=\"org\"/>"))
        #expect(
            try h.app.introspect(API.sessionsPath.rawValue).contains(
                "<node name=\"\(path.split(separator: "/").last!)\"/>"))
        let tree = try h.desktop.run(["busctl", "--address=" + h.bus.address, "tree", API.busName.rawValue])
        #expect(tree.status == 0 && tree.text.contains(path), "\(tree.errorText)")
        let gdbus = try h.desktop.run([
            "gdbus", "introspect", "--session", "--dest", API.busName.rawValue, "--object-path", path,
        ])
        #expect(gdbus.status == 0 && gdbus.text.contains("Wait(in  u timeout_ms,"), "\(gdbus.errorText)")
    }
}

/// The next message on `client` that satisfies `match`.
func eventuallyMessage(_ client: BusClient, timeoutMilliseconds: Int = 5000, _ match: (DBusMessage) -> Bool)
    -> DBusMessage?
{
    let deadline = Clock.monotonicMilliseconds() + Int64(timeoutMilliseconds)
    while Clock.monotonicMilliseconds() < deadline {
        if let m = client.connection.nextMessage(timeoutMilliseconds: 200), match(m) { return m }
    }
    return nil
}
