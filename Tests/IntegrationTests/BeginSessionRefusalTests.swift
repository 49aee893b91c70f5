import DBusKit
import LinkRouterAPI
import SystemKit
import Testing

/// `BeginSession` refusals: the error names, no session left behind, no
/// browser opened, the daemon still up (threat model D5, D6).
@Suite("BeginSession refusals")
struct BeginSessionRefusalTests {
    static let good: [(String, DBusValue)] = [
        ("authorization_endpoint", .string("https://auth.example.com/authorize")), ("client_id", .string("demo")),
        ("redirect_uri", .string("com.example.app:/callback")),
    ]

    static func with(_ key: String, _ value: DBusValue) -> [(String, DBusValue)] {
        good.filter { $0.0 != key } + [(key, value)]
    }

    @Test(
        "semantic refusals are InvalidArgument with a message that says what to do",
        arguments: [
            ("redirect_uri", DBusValue.string("myapp://callback"), "reverse-domain"),
            ("redirect_uri", .string("https://example.com/cb#frag"), "fragment"),
            ("redirect_uri", .string("http://example.com/cb"), "loopback"),
            ("redirect_uri", .string("javascript:alert(1)"), "never an app's own scheme"),
            ("authorization_endpoint", .string("http://auth.example.com/authorize"), "https"),
            ("client_id", .string(String(repeating: "x", count: 1 << 20)), "bytes long"),
            ("client_id", .string("a\u{1}b"), "printable"),
            ("scope", .string("openid\nprofile"), "scope"),
            ("ttl", .uint32(0), "ttl"),
            ("ttl", .uint32(999_999), "ttl"),
            ("browser", .string("../../bin/sh"), "desktop file id"),
            ("resume", .string("sometimes"), "browser, client, none"),
            ("claim_token", .string("short"), "22"),
            ("code_challenge", .string("plain"), "S256"),
            ("issuer", .string("http://as.example"), "issuer"),
            ("extra_params", .stringDict([("state", "x")]), "may not set"),
        ])
    func semantic(_ key: String, _ value: DBusValue, _ words: String) throws {
        let h = try Harness()
        let message = try h.expectRefusal(errorPrefix + "InvalidArgument") {
            _ = try h.app.begin(Self.with(key, value))
        }
        #expect(message.contains(words), "\(message)")
    }

    @Test("type and shape errors are InvalidArgs")
    func shapes() throws {
        let h = try Harness()
        try h.expectRefusal(invalidArgs) { _ = try h.app.begin(Self.with("ttl", .string("600"))) }
        try h.expectRefusal(invalidArgs) { _ = try h.app.begin(Self.with("open_browser", .string("no"))) }
        try h.expectRefusal(invalidArgs) { _ = try h.app.begin(Self.with("extra_params", .stringArray(["a"]))) }
        let unknown = try h.expectRefusal(invalidArgs) { _ = try h.app.begin(Self.with("redirect_url", .string("x"))) }
        #expect(unknown.contains("unknown option \"redirect_url\""))
        try h.expectRefusal(invalidArgs) { _ = try h.app.call("BeginSession", [.string("x")]) }
        try h.expectRefusal(invalidArgs) { _ = try h.app.call("BeginSession", []) }
        try h.expectRefusal(invalidArgs) {
            _ = try h.app.call(
                "BeginSession",
                [.dictionary(key: DBusSignature("s"), value: DBusSignature("s"), [.init(.string("a"), .string("b"))])])
        }
        try h.expectRefusal(errorPrefix + "InvalidArgument") { _ = try h.app.begin([]) }
    }

    @Test("an adopted state already in use is refused; its session keeps its owner (D5)")
    func fixation() throws {
        let h = try Harness()
        let url =
            "https://auth.example.com/authorize?response_type=code&client_id=c&redirect_uri=com.example.app%3A%2Fcallback&state=adopted-state-0123456789"
        let (path, _) = try h.app.begin([("authorize_url", .string(url)), ("open_browser", .boolean(false))])
        let intruder = try h.client()
        try h.expectRefusal(errorPrefix + "InvalidArgument") {
            _ = try intruder.begin([("authorize_url", .string(url)), ("open_browser", .boolean(false))])
        }
        #expect(try h.app.route("com.example.app:/callback?code=c&state=adopted-state-0123456789") == "completed")
        #expect(try h.app.wait(path)["code"] == "c")
    }

    @Test("no browser to open is a clear error, and nothing is kept")
    func noBrowser() throws {
        let h = try Harness(browser: false)
        let message = try h.expectRefusal(errorPrefix + "BrowserFailed") { _ = try h.app.begin(Self.good) }
        #expect(message.contains("xdg-settings"))
        try h.expectRefusal(errorPrefix + "BrowserFailed") {
            _ = try h.app.begin(Self.good + [("browser", .string("missing.desktop"))])
        }
    }

    @Test("limits per client and in all (X2)")
    func limits() throws {
        let h = try Harness(daemonArguments: ["--max-pending-per-client", "3", "--max-pending", "4"])
        for _ in 0..<3 { _ = try h.app.beginQuiet() }
        let m = try h.expectRefusal(errorPrefix + "LimitsExceeded") { _ = try h.app.beginQuiet() }
        #expect(m.contains("per-client"))
        let other = try h.client()
        _ = try other.beginQuiet()
        try h.expectRefusal(errorPrefix + "LimitsExceeded") { _ = try other.beginQuiet() }
    }
}
