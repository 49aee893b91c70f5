import DBusKit
import LinkRouterAPI
import SystemKit
import Testing

/// Every refusal of `Route` (the callback rules): the exact error, the
/// sessions untouched, nothing opened, the daemon still up.
@Suite("Route refusals")
struct RouteRefusalTests {
    @Test("unknown state, near-miss state, no state (S1, U2, U3)")
    func states() throws {
        let h = try Harness()
        let (_, url) = try h.app.beginQuiet()
        let state = Harness.state(of: url)
        try h.expectRefusal(errorPrefix + "UnknownState") {
            _ = try h.app.route("com.example.app:/callback?code=c&state=forged")
        }
        try h.expectRefusal(errorPrefix + "UnknownState") {
            _ = try h.app.route("com.example.app:/callback?code=c&state=\(state)A")
        }
        try h.expectRefusal(errorPrefix + "UnknownState") {
            _ = try h.app.route("com.example.app:/callback?code=c&state=\(state.dropLast())")
        }
        try h.expectRefusal(errorPrefix + "InvalidArgument") {
            _ = try h.app.route("com.example.app:/callback?code=c&state=")
        }
        try h.expectRefusal(errorPrefix + "InvalidArgument") { _ = try h.app.route("com.example.app:/callback?code=c") }
    }

    @Test("callback mismatches name the difference (U8)")
    func mismatches() throws {
        let h = try Harness()
        let (_, url) = try h.app.beginQuiet()
        let state = Harness.state(of: url)
        let slash = try h.expectRefusal(errorPrefix + "CallbackMismatch") {
            _ = try h.app.route("com.example.app:/callback/?code=c&state=\(state)")
        }
        #expect(slash.contains("trailing slash"))
        let enc = try h.expectRefusal(errorPrefix + "CallbackMismatch") {
            _ = try h.app.route("com.example.app:/c%61llback?code=c&state=\(state)")
        }
        #expect(enc.contains("percent-encoding"))
        let auth = try h.expectRefusal(errorPrefix + "CallbackMismatch") {
            _ = try h.app.route("com.example.app://callback?code=c&state=\(state)")
        }
        #expect(auth.contains("authority"))
        try h.expectRefusal(errorPrefix + "CallbackMismatch") {
            _ = try h.app.route("com.other.app:/callback?code=c&state=\(state)")
        }
    }

    @Test("a replay is refused and the first result stays (S2)")
    func replay() throws {
        let h = try Harness()
        let (path, url) = try h.app.beginQuiet()
        let uri = "com.example.app:/callback?code=first&state=\(Harness.state(of: url))"
        #expect(try h.app.route(uri) == "completed")
        try h.expectRefusal(errorPrefix + "Replayed") { _ = try h.app.route(uri) }
        try h.expectRefusal(errorPrefix + "Replayed") { _ = try h.app.route(uri.replacingCode("second")) }
        #expect(try h.app.wait(path)["code"] == "first")
    }

    @Test(
        "malformed callbacks are refused with nothing else touched (U1, U4, U5, U6, U7)",
        arguments: [
            ("code=c&state=S&state=S", "InvalidArgument"),
            ("code=a&code=b&state=S", "InvalidArgument"),
            ("code=c&error=x&state=S", "InvalidArgument"),
            ("code=a%FF&state=S", "InvalidArgument"),
            ("code=%zz&state=S", "InvalidArgument"),
            ("code=ab%00cd&state=S", "InvalidArgument"),
            ("code=a%0Ab&state=S", "InvalidArgument"),
            ("code=a\nb&state=S", "InvalidArgument"),
            ("code=a b&state=S", "InvalidArgument"),
            ("code=a\tb&state=S", "InvalidArgument"),
            ("code=\u{7F}&state=S", "InvalidArgument"),
            ("code=" + String(repeating: "a", count: 9000) + "&state=S", "LimitsExceeded"),
            ((0..<40).map { "p\($0)=1" }.joined(separator: "&") + "&code=c&state=S", "LimitsExceeded"),
            ("state=S#code=EVIL", "InvalidArgument"),
        ])
    func malformed(_ query: String, _ name: String) throws {
        let h = try Harness()
        let (_, url) = try h.app.beginQuiet()
        let (other, _) = try h.app.beginQuiet()
        let uri = "com.example.app:/callback?" + query.replacingOccurrencesOfS(with: Harness.state(of: url))
        try h.expectRefusal(errorPrefix + name) { _ = try h.app.route(uri) }
        #expect(try h.app.status(other) == "pending")
    }

    @Test("a fragment-only response is never read (U7)")
    func fragmentOnly() throws {
        let h = try Harness()
        let (_, url) = try h.app.beginQuiet()
        try h.expectRefusal(errorPrefix + "InvalidArgument") {
            _ = try h.app.route("com.example.app:/callback#code=C&state=\(Harness.state(of: url))")
        }
    }

    @Test(
        "schemes that are not callbacks are refused (R5)",
        arguments: ["file:///etc/passwd", "javascript:alert(1)", "mailto:x@example.com", "myapp:/callback?state=x"])
    func notCallbacks(_ uri: String) throws {
        let h = try Harness()
        try h.expectRefusal(errorPrefix + "NotACallback") { _ = try h.app.route(uri) }
    }

    @Test("wrong signatures get InvalidArgs; the daemon survives (D6)")
    func signatures() throws {
        let h = try Harness()
        try h.expectRefusal(invalidArgs) { _ = try h.app.call("Route", [.int32(1)]) }
        try h.expectRefusal(invalidArgs) { _ = try h.app.call("Route", []) }
        try h.expectRefusal(invalidArgs) { _ = try h.app.call("Route", [.string("a"), .string("b")]) }
        try h.expectRefusal(errorPrefix + "InvalidArgument") { _ = try h.app.route("") }
        try h.expectRefusal("org.freedesktop.DBus.Error.UnknownMethod") { _ = try h.app.call("Rout", [.string("x")]) }
        try h.expectRefusal("org.freedesktop.DBus.Error.UnknownObject") {
            _ = try h.app.call(
                "Wait", [.uint32(1)], path: "/org/linkrouter/LinkRouter1/sessions/nothere",
                interface: API.sessionInterface.rawValue)
        }
        try h.expectRefusal("org.freedesktop.DBus.Error.UnknownInterface") {
            _ = try h.app.call("Route", [.string("x")], interface: "org.example.Nope")
        }
    }
}

extension String {
    func replacingCode(_ code: String) -> String {
        split(separator: "&").map {
            $0.hasPrefix("com.example.app:/callback?code=") ? "com.example.app:/callback?code=" + code : String($0)
        }.joined(separator: "&")
    }

    /// `state=S` → `state=<state>` (tests' placeholder).
    func replacingOccurrencesOfS(with state: String) -> String {
        split(separator: "&", omittingEmptySubsequences: false).map { seg -> String in
            if seg == "state=S" { return "state=" + state }
            if seg.hasPrefix("state=S#") { return "state=" + state + seg.dropFirst(7) }
            return String(seg)
        }.joined(separator: "&")
    }
}
