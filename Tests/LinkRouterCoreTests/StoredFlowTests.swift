import Testing

@testable import LinkRouterCore

/// A flow as the store keeps it (`SessionFlow.stored`): one versioned value
/// that reads back to the same flow, whatever order its lines are in, with
/// keys it does not know skipped and a damaged value refused.
@Suite("Stored flows")
struct StoredFlowTests {
    static func parse(_ text: String, _ role: String) -> CallbackURI? { try? CallbackURI.parse(text, role: role) }

    static func full() throws -> SessionFlow {
        let s = try Fixtures.session(
            Fixtures.request(app: "https://example.com/app") { r in
                r.resumeHosts = ["api.vipps.no", "apitest.vipps.no"]
                r.resumePathPrefix = "/p/"
                r.requireIssuer = true
                r.issuer = "https://as.example"
            })
        let c = s.code
        return .code(
            CodeFlow(
                source: c.source, state: c.state, nonce: c.nonce, codeVerifier: c.codeVerifier, redirect: c.redirect,
                appCallback: c.appCallback,
                authorizationOrigin: c.authorizationOrigin, resumeHosts: c.resumeHosts,
                resumePathPrefix: c.resumePathPrefix, resumeMode: .client,
                browser: "firefox.desktop", issuer: c.issuer, requireIssuer: c.requireIssuer,
                exchange: TokenExchange(
                    clientID: "c", tokenEndpoint: "https://as.example/token", jwksURI: "https://as.example/jwks",
                    expectsIDToken: true, account: "work",
                    accountInMemory: true),
                resumeOpened: true))
    }

    @Test("every field reads back as written; in any line order; an unknown key is skipped")
    func roundTrip() throws {
        let flow = try Self.full()
        #expect(SessionFlow(kind: "code", stored: flow.stored, callback: Self.parse) == flow)
        // Written in two passes (length, then bytes): exactly the lines, none empty, no stray byte.
        let lines = flow.stored.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(
            lines.first == "v=1" && lines.count == 21 && lines.allSatisfy { $0.contains("=") && !$0.hasSuffix("=") })
        #expect(
            SessionFlow(kind: "code", stored: lines.reversed().joined(separator: "\n"), callback: Self.parse) == flow)
        #expect(
            SessionFlow(
                kind: "code", stored: (lines + ["from_a_newer_daemon=x"]).joined(separator: "\n"), callback: Self.parse)
                == flow)
    }

    @Test(
        "refused: another kind, another version, a line with no '=', a required field missing, a callback that does not parse"
    )
    func refused() throws {
        let stored = try Self.full().stored
        #expect(stored.hasPrefix("v=1\n"))
        let lines = stored.split(separator: "\n").map(String.init)
        #expect(SessionFlow(kind: "device", stored: stored, callback: Self.parse) == nil)
        #expect(SessionFlow(kind: "code", stored: "v=2" + stored.dropFirst(3), callback: Self.parse) == nil)
        #expect(SessionFlow(kind: "code", stored: stored + "\nnoequals", callback: Self.parse) == nil)
        #expect(
            SessionFlow(
                kind: "code", stored: lines.filter { !$0.hasPrefix("state=") }.joined(separator: "\n"),
                callback: Self.parse) == nil)
        #expect(
            SessionFlow(
                kind: "code",
                stored: lines.map { $0.hasPrefix("app_callback=") ? "app_callback=not a uri" : $0 }.joined(
                    separator: "\n"),
                callback: Self.parse) == nil)
    }

    @Test(
        "a restore shares what rows have in common: a callback parsed once for two rows, a new one parsed again; each row reads as written"
    )
    func sharedAcrossRows() throws {
        let a = try Self.full()
        let b = SessionFlow.code(try Fixtures.session(Fixtures.request(redirect: "com.example.other:/cb"), n: 2).code)
        var parses = 0
        func counting(_ text: String, _ role: String) -> CallbackURI? {
            parses += 1
            return Self.parse(text, role)
        }
        var reuse = StoredFlowReuse()
        for (flow, expected) in [(a, 2), (a, 2), (b, 3)] {
            var text = flow.stored
            let read = text.withUTF8 { SessionFlow(kind: "code", bytes: $0, reuse: &reuse, callback: counting) }
            #expect(read == flow)
            #expect(
                parses == expected,
                "redirect and app callback of the first row, none for the same again, the new redirect of the third")
        }
    }
}
