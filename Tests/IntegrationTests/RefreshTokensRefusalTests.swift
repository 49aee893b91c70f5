import DBusKit
import LinkRouterAPI
import SystemKit
import Testing

/// `RefreshTokens` refusals that need no provider: each bad option gets its
/// own error before anything is fetched (a fetch of this issuer would end in
/// `DiscoveryFailed` instead), a session begun before is untouched, and the
/// daemon stays up.
@Suite("RefreshTokens refusals")
struct RefreshTokensRefusalTests {
    static let good: [(String, DBusValue)] = [
        ("issuer", .string("https://id.example.invalid/realms/demo")), ("client_id", .string("demo")),
        ("refresh_token", .string("r-123")),
    ]

    static func with(_ key: String, _ value: DBusValue) -> [(String, DBusValue)] {
        good.filter { $0.0 != key } + [(key, value)]
    }

    static func without(_ key: String) -> [(String, DBusValue)] { good.filter { $0.0 != key } }

    @Test("unknown, repeated and mistyped options are InvalidArgs, saying which")
    func shapes() throws {
        let h = try Harness(browser: false)
        _ = try h.app.beginQuiet()
        func refresh(_ options: [(String, DBusValue)]) throws {
            _ = try h.app.call("RefreshTokens", [.vardict(options)])
        }
        let unknown = try h.expectRefusal(invalidArgs) { try refresh(Self.with("refresh", .string("r"))) }
        #expect(unknown == "unknown option \"refresh\"; known options: issuer, client_id, refresh_token, scope")
        let twice = try h.expectRefusal(invalidArgs) { try refresh(Self.good + [("client_id", .string("other"))]) }
        #expect(twice == "option \"client_id\" is given twice")
        let mistyped = try h.expectRefusal(invalidArgs) { try refresh(Self.with("scope", .uint32(1))) }
        #expect(mistyped.hasPrefix("option \"scope\" must be of type s, not "))
        try h.expectRefusal(invalidArgs) { _ = try h.app.call("RefreshTokens", [.string("x")]) }
    }

    @Test(
        "missing or malformed values are InvalidArgument with a message that says what to give",
        arguments: [
            (
                without("refresh_token"),
                "refresh_token is missing: the refresh token (at most 8 KiB of printable ASCII)"
            ),
            (
                without("issuer"),
                "issuer is missing: the issuer the refresh token came from; its metadata gives the token endpoint and keys"
            ),
            (
                with("refresh_token", .string("new\nline")),
                "refresh_token must be 1 to 8192 characters of printable ASCII"
            ),
            (with("refresh_token", .string("")), "refresh_token must be 1 to 8192 characters of printable ASCII"),
            (with("client_id", .string("tab\there")), "client_id must be printable ASCII (RFC 6749 Appendix A)"),
            (
                with("scope", .string("openid\nemail")),
                "scope must be space-separated tokens of printable ASCII (RFC 6749 §3.3)"
            ),
        ])
    func values(_ options: [(String, DBusValue)], _ message: String) throws {
        let h = try Harness(browser: false)
        _ = try h.app.beginQuiet()
        let got = try h.expectRefusal(errorPrefix + "InvalidArgument") {
            _ = try h.app.call("RefreshTokens", [.vardict(options)])
        }
        #expect(got == message)
    }

    @Test("an http issuer is refused unless it is on a loopback host")
    func httpIssuer() throws {
        let h = try Harness(browser: false)
        let got = try h.expectRefusal(errorPrefix + "InvalidArgument") {
            _ = try h.app.call(
                "RefreshTokens", [.vardict(Self.with("issuer", .string("http://id.example.com/realms/demo")))])
        }
        #expect(got.contains("issuer must be an https URL"), "\(got)")
    }
}
