import DBusKit
import LinkRouterAPI
import LinkRouterCore
import OpenSSLKit
import SystemKit
import Testing

/// Threat model, "D-Bus callers" (D1–D7).
@Suite("Threat model D: D-Bus callers")
struct CallerThreatTests {
    @Test("D1: another client's Wait, Cancel and Claim are AccessDenied; the session is untouched")
    func d1() throws {
        let h = try Harness()
        let (path, _) = try h.app.beginQuiet(extra: [("claim_token", .string(String(repeating: "t", count: 43)))])
        let other = try h.client()
        try h.expectRefusal(errorPrefix + "AccessDenied") { _ = try other.wait(path, timeoutMilliseconds: 100) }
        try h.expectRefusal(errorPrefix + "AccessDenied") {
            _ = try other.call("Cancel", path: path, interface: API.sessionInterface.rawValue)
        }
        try h.expectRefusal(errorPrefix + "AccessDenied") {
            _ = try other.call(
                "Claim", [.string("wrong-token-wrong-token-wrong")], path: path,
                interface: API.sessionInterface.rawValue)
        }
        #expect(try h.app.status(path) == "pending")
    }

    @Test(
        "D2: an owner leaving cancels its session, or parks it for its claim token only; the owner is the bus name, never a pid"
    )
    func d2() throws {
        let h = try Harness()
        var leaving: BusClient? = try h.client()
        let (plain, _) = try leaving!.beginQuiet()
        let token = String(repeating: "p", count: 43)
        let (parked, _) = try leaving!.beginQuiet(extra: [("claim_token", .string(token))])
        leaving = nil
        #expect(eventually { (try? h.app.status(plain)) == "cancelled" })
        #expect(try h.app.status(parked) == "pending")
        // Nobody holds it now; only the token gives it back.
        let next = try h.client()
        try h.expectRefusal(errorPrefix + "AccessDenied") { _ = try next.wait(parked, timeoutMilliseconds: 100) }
        _ = try next.call("Claim", [.string(token)], path: parked, interface: API.sessionInterface.rawValue)
        #expect(errorName { _ = try next.wait(parked, timeoutMilliseconds: 100) } == errorPrefix + "Timeout")
    }

    @Test(
        "D3: results travel only in the method reply to the owner: a monitor sees no broadcast or signal carrying the code or verifier"
    )
    func d3() throws {
        let h = try Harness()
        let monitor = try h.client()
        _ = try monitor.connection.callArguments(
            {
                let m = DBusMessage.methodCall(
                    "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.Monitoring", "BecomeMonitor")
                try! m.append(.stringArray([]), .uint32(0))
                return m
            }())
        let (path, url) = try h.app.beginQuiet()
        _ = try h.client().route("com.example.app:/callback?code=MONITORED-CODE&state=\(Harness.state(of: url))")
        let result = try h.app.wait(path)
        let verifier = try #require(result["code_verifier"])
        // A barrier, not a silence: a Ping to the daemon is answered after everything it sent
        // before, so once the monitor sees that answer it has seen all of it.
        let ping = DBusMessage.methodCall(API.busName, API.managerPath, API.peerInterface, "Ping")
        try h.app.connection.send(ping)
        h.app.connection.flush()
        var carrying: [DBusMessage] = []
        var sawBarrier = false
        while !sawBarrier, let m = monitor.connection.nextMessage(timeoutMilliseconds: 10_000) {
            if m.kind == .methodReturn && m.replySerial == ping.serial && m.destination == h.app.name {
                sawBarrier = true
                continue
            }
            let text = (try? m.arguments()).map { "\($0)" } ?? ""
            if text.contains(verifier) || (text.contains("MONITORED-CODE") && m.member != "Route") {
                carrying.append(m)
            }
        }
        #expect(sawBarrier)
        // The positive control: the monitor does see the one reply that carries them.
        #expect(!carrying.isEmpty)
        for m in carrying {
            #expect(
                m.kind == .methodReturn && m.destination == h.app.name,
                "a secret in \(m.kind) to \(m.destination ?? "everyone")")
        }
        // The mitigation for a bus that same-user programs can watch: a client-held verifier. The daemon sends the
        // app's challenge and never has a verifier to reveal, so an eavesdropped code cannot be redeemed.
        let challenge = try SecretFactory.challenge(for: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        let (held, heldURL) = try h.app.beginQuiet(extra: [("code_challenge", .string(challenge))])
        #expect(
            heldURL.queryValue("code_challenge") == challenge && heldURL.queryValue("code_challenge_method") == "S256")
        #expect(try h.app.route("com.example.app:/callback?code=C2&state=\(Harness.state(of: heldURL))") == "completed")
        let heldResult = try h.app.wait(held)
        #expect(
            heldResult["code"] == "C2" && heldResult["code_verifier"] == nil
                && heldResult["nonce"] == heldURL.queryValue("nonce"))
    }

    @Test(
        "D4: the confused deputy across sandboxes is outside this design (see docs/security.md); same-user callers are all trusted alike"
    )
    func d4() throws {
        // What holds instead: a second app can begin a session on the first app's scheme, but cannot
        // receive the first app's results, and a callback goes only to the session its state names.
        let h = try Harness()
        let other = try h.client()
        let (mine, url) = try h.app.beginQuiet()
        let (theirs, _) = try other.beginQuiet()
        #expect(try h.app.route("com.example.app:/callback?code=C&state=\(Harness.state(of: url))") == "completed")
        try h.expectRefusal(errorPrefix + "AccessDenied") { _ = try other.wait(mine) }
        #expect(try other.status(theirs) == "pending")
    }

    @Test(
        "D5: an adopted state already pending, too short, outside the alphabet or too long is refused; the existing session keeps its owner"
    )
    func d5() throws {
        let h = try Harness()
        func adopt(_ client: BusClient, _ state: String) throws -> (String, String) {
            try client.begin([
                (
                    "authorize_url",
                    .string(
                        "https://as.example/auth?response_type=code&redirect_uri=com.example.app%3A%2Fcallback&state="
                            + state)
                ),
                ("open_browser", .boolean(false)),
            ])
        }
        let (path, _) = try adopt(h.app, "adopted-state-0123456789")
        let other = try h.client()
        for bad in ["adopted-state-0123456789", "short", "has*star*0123456789", String(repeating: "a", count: 129)] {
            try h.expectRefusal(errorPrefix + "InvalidArgument") { _ = try adopt(other, bad) }
        }
        #expect(try h.app.route("com.example.app:/callback?code=C&state=adopted-state-0123456789") == "completed")
        #expect(try h.app.wait(path)["code"] == "C")
    }

    @Test("D6: malformed arguments get InvalidArgs or InvalidArgument; the daemon stays up")
    func d6() throws {
        let h = try Harness()
        try h.expectRefusal(errorPrefix + "InvalidArgument") {
            _ = try h.app.begin(
                BeginSessionRefusalTests.with("client_id", .string(String(repeating: "x", count: 1 << 20))))
        }
        try h.expectRefusal(errorPrefix + "InvalidArgument") {
            _ = try h.app.begin(BeginSessionRefusalTests.with("redirect_uri", .string("com.example.app:/cb#f")))
        }
        try h.expectRefusal(errorPrefix + "InvalidArgument") {
            _ = try h.app.begin(BeginSessionRefusalTests.with("authorization_endpoint", .string("http://as.example/a")))
        }
        try h.expectRefusal(errorPrefix + "InvalidArgument") {
            _ = try h.app.begin(BeginSessionRefusalTests.with("scope", .string("openid\u{1}")))
        }
        try h.expectRefusal(invalidArgs) { _ = try h.app.call("BeginSession", [.int32(1)]) }
        try h.expectRefusal(invalidArgs) { _ = try h.app.call("Route", [.objectPath(ObjectPath("/x"))]) }
    }

    @Test("D7: object paths are [0-9a-f] ids, and odd Unicode in arguments never makes libdbus abort")
    func d7() throws {
        let h = try Harness()
        for _ in 0..<20 {
            let (path, _) = try h.app.beginQuiet()
            let id = try #require(path.split(separator: "/").last)
            #expect(id.count == 32 && id.allSatisfy { "0123456789abcdef".contains($0) })
        }
        for odd in ["\u{FFFF}", "\u{10FFFF}", "\u{202E}", "é\u{301}", String(repeating: "😀", count: 3000)] {
            _ = dbusError { _ = try h.app.route("com.example.app:/callback?state=" + odd) }
            _ = dbusError { _ = try h.app.begin(BeginSessionRefusalTests.with("client_id", .string(odd))) }
            #expect(h.daemonAnswers)
        }
        #expect(try h.app.introspect(API.sessionsPath.rawValue).contains("<node name="))
    }
}
