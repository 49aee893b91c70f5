import Testing

@testable import LinkRouterCore

/// A login as the store keeps it (`Login.stored`, through `StoredForm`): one
/// versioned value that reads back to the same login, whatever order its
/// lines are in, with keys it does not know skipped and a damaged value refused.
@Suite("Stored logins")
struct StoredFlowTests {
    static func parse(_ text: String, _ role: String) -> CallbackURI? { try? CallbackURI.parse(text, role: role) }

    static func full() throws -> Login {
        let s = try Fixtures.session(
            Fixtures.request(app: "https://example.com/app") { r in
                r.login.resumeHosts = ["api.vipps.no", "apitest.vipps.no"]
                r.login.resumePathPrefix = "/p/"
                r.login.requireIssuer = true
                r.issuer = "https://as.example"
            })
        let c = s.codeLogin
        var options = c.options
        options.resume = ResumeMode.client.rawValue
        return .code(
            CodeLogin(
                source: c.source, state: c.state, nonce: c.nonce, codeVerifier: c.codeVerifier, redirect: c.redirect,
                appCallback: c.appCallback, authorizationOrigin: c.authorizationOrigin, options: options,
                browser: "firefox.desktop", issuer: c.issuer,
                exchange: TokenExchange(
                    clientID: "c", tokenEndpoint: "https://as.example/token", jwksURI: "https://as.example/jwks",
                    expectsIDToken: true, account: "work",
                    accountInMemory: true, stepUp: StepUp(acrValues: ["urn:mfa", "urn:hwk"], maxAge: 600)),
                resumeOpened: true))
    }

    @Test("every field reads back as written; in any line order; an unknown key is skipped")
    func roundTrip() throws {
        let login = try Self.full()
        #expect(Login(kind: "code", stored: login.stored, parse: Self.parse) == login)
        // Written in two passes (length, then bytes): exactly the lines, none empty, no stray byte.
        let lines = login.stored.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(
            lines.first == "v=1" && lines.count == 23 && lines.allSatisfy { $0.contains("=") && !$0.hasSuffix("=") })
        #expect(Login(kind: "code", stored: lines.reversed().joined(separator: "\n"), parse: Self.parse) == login)
        #expect(
            Login(kind: "code", stored: (lines + ["from_a_newer_daemon=x"]).joined(separator: "\n"), parse: Self.parse)
                == login)
        // The options a login keeps are written under their option keys, by their option rows.
        #expect(
            lines.contains("resume=client") && lines.contains("resume_hosts=api.vipps.no apitest.vipps.no")
                && lines.contains("resume_path_prefix=/p/") && lines.contains("require_iss=1"))
    }

    @Test(
        "refused: another kind, another version, a line with no '=', a required field missing, a callback or a step-up that does not parse"
    )
    func refused() throws {
        let stored = try Self.full().stored
        #expect(stored.hasPrefix("v=1\n"))
        let lines = stored.split(separator: "\n").map(String.init)
        #expect(Login(kind: "device", stored: stored, parse: Self.parse) == nil)
        #expect(Login(kind: "elsewhere", stored: stored, parse: Self.parse) == nil)
        #expect(Login(kind: "code", stored: "v=2" + stored.dropFirst(3), parse: Self.parse) == nil)
        #expect(Login(kind: "code", stored: stored + "\nnoequals", parse: Self.parse) == nil)
        #expect(
            Login(
                kind: "code", stored: lines.filter { !$0.hasPrefix("state=") }.joined(separator: "\n"),
                parse: Self.parse)
                == nil)
        #expect(
            Login(
                kind: "code",
                stored: lines.map { $0.hasPrefix("app_callback=") ? "app_callback=not a uri" : $0 }.joined(
                    separator: "\n"),
                parse: Self.parse) == nil)
        #expect(
            Login(
                kind: "code", stored: lines.filter { !$0.hasPrefix("exchange_jwks_uri=") }.joined(separator: "\n"),
                parse: Self.parse) == nil, "an exchange with a part missing is damage, not no exchange")
        #expect(
            Login(
                kind: "code",
                stored: lines.map { $0.hasPrefix("exchange_max_age=") ? "exchange_max_age=soon" : $0 }.joined(
                    separator: "\n"),
                parse: Self.parse) == nil, "a step-up that does not read: its ID token could not be checked as asked")
    }

    @Test(
        "a restore shares what rows have in common: a callback parsed once for two rows, a new one parsed again; each row reads as written"
    )
    func sharedAcrossRows() throws {
        let a = try Self.full()
        let b = try Fixtures.session(Fixtures.request(redirect: "com.example.other:/cb"), n: 2).login
        var parses = 0
        var reuse = StoredReuse { text, role in
            parses += 1
            return Self.parse(text, role)
        }
        for (login, expected) in [(a, 2), (a, 2), (b, 3)] {
            var text = login.stored
            let read = text.withUTF8 { Login(kind: "code", bytes: $0, reuse: &reuse) }
            #expect(read == login)
            #expect(
                parses == expected,
                "redirect and app callback of the first row, none for the same again, the new redirect of the third")
        }
    }

    @Test("a device login's value of the format before (its exchange lines unprefixed) still reads")
    func formerDeviceLines() throws {
        let former = [
            "v=1", "issuer=https://as.example", "client_id=c", "token_endpoint=https://as.example/token",
            "jwks_uri=https://as.example/jwks", "user_code=ABCD", "verification_uri=https://as.example/device",
            "interval=5", "openid=1", "account=work", "device_code=dc",
        ].joined(separator: "\n")
        let read = try #require(Login(kind: "device", stored: former, parse: Self.parse))
        guard case .device(let d) = read else {
            Issue.record("not a device login: \(read)")
            return
        }
        #expect(
            d.exchange.clientID == "c" && d.exchange.expectsIDToken && d.exchange.account == "work"
                && d.deviceCode == "dc" && d.interval == 5)
        // Written again, it uses the one set of names every login's exchange has.
        #expect(read.stored.contains("exchange_client_id=c") && !read.stored.contains("\nclient_id="))
    }
}
