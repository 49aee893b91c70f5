import LinkRouterCore
import Testing

@Suite("BeginSession's options (D5, D6)")
struct SessionPlanTests {
    func refused(_ r: SessionRequest, _ words: String) -> Bool {
        do {
            _ = try SessionPlan.make(r, owner: Fixtures.caller, limits: Limits())
            return false
        } catch {
            return error.code == .invalidArgument && error.message.contains(words)
        }
    }

    @Test("builder mode needs an endpoint, a client id and a redirect")
    func builder() throws {
        #expect(refused(SessionRequest(), "give issuer (or authorization_endpoint)"))
        #expect(refused(Fixtures.request { $0.clientID = nil }, "client_id is missing"))
        #expect(refused(Fixtures.request { $0.redirectURI = nil }, "redirect_uri is missing"))
        #expect(refused(Fixtures.request { $0.authorizationEndpoint = "http://auth.example.com/a" }, "must use https"))
        #expect(refused(Fixtures.request { $0.authorizationEndpoint = "https://u@auth.example.com/a" }, "userinfo"))
        #expect(refused(Fixtures.request { $0.authorizationEndpoint = "https://auth.example.com/a#x" }, "fragment"))
        #expect(
            refused(
                Fixtures.request { $0.authorizationEndpoint = "https://auth.example.com/a?state=1" },
                "already carries \"state\""))
        #expect(refused(Fixtures.request { $0.clientID = String(repeating: "a", count: 1 << 20) }, "bytes long"))
        #expect(refused(Fixtures.request { $0.clientID = "a\u{1}b" }, "printable ASCII"))
        #expect(refused(Fixtures.request { $0.scope = "openid\nprofile" }, "scope"))
        #expect(refused(Fixtures.request { $0.scope = "openid  profile" }, "scope"))
        #expect(refused(Fixtures.request { $0.extraParams = ["state": "x"] }, "may not set \"state\""))
        #expect(refused(Fixtures.request { $0.extraParams = ["a": "b\nc"] }, "control character"))
        #expect(refused(Fixtures.request { $0.ttl = 0 }, "ttl 0 is out of range"))
        #expect(refused(Fixtures.request { $0.ttl = 86400 }, "out of range"))
        #expect(refused(Fixtures.request { $0.login.resume = "later" }, "not one of browser, client, none"))
        #expect(refused(Fixtures.request { $0.login.resumeHosts = ["API.vipps.no"] }, "lowercase host name"))
        #expect(refused(Fixtures.request { $0.browser = "firefox" }, "desktop file id"))
        #expect(refused(Fixtures.request { $0.browser = "../x.desktop" }, "desktop file id"))
        #expect(refused(Fixtures.request { $0.claimToken = "short" }, "at least 22"))
        #expect(refused(Fixtures.request { $0.codeChallenge = "plain-verifier" }, "S256"))
        #expect(refused(Fixtures.request { $0.issuer = "http://as.example" }, "issuer must be an https URL"))
        #expect(refused(Fixtures.request { $0.login.requireIssuer = true }, "needs the issuer"))
        #expect(refused(Fixtures.request { $0.appCallbackURI = "http://127.0.0.1/cb" }, "not loopback"))
        #expect(refused(Fixtures.request { $0.redirectURI = "com.example.app:/cb#frag" }, "fragment"))
    }

    @Test("the authorize URL carries every parameter, encoded")
    func url() throws {
        let request = Fixtures.request {
            $0.authorizationEndpoint = "https://auth.example.com/authorize?tenant=a%20b"
            $0.scope = "openid profile"
            $0.extraParams = ["prompt": "login", "audience": "x y"]
        }
        let s = try Fixtures.session(request)
        #expect(
            try Fixtures.authorizeURL(request)
                == "https://auth.example.com/authorize?tenant=a%20b&response_type=code&client_id=client&redirect_uri=com.example.app%3A%2Fcallback&scope=openid%20profile&state=\(s.codeLogin.state)&nonce=nonce-1&code_challenge=challenge-1&code_challenge_method=S256&audience=x%20y&prompt=login"
        )
        #expect(s.expiresAt == Fixtures.now + 600)
    }

    @Test("a client-held challenge replaces the daemon's verifier")
    func clientPKCE() throws {
        let challenge = String(repeating: "A", count: 43)
        var plan = try SessionPlan.make(
            Fixtures.request { $0.codeChallenge = challenge }, owner: Fixtures.caller, limits: Limits())
        #expect(!plan.needsVerifier)
        plan.bind(port: 1)
        let s = plan.makeSession(secrets: Fixtures.secrets(), claimTokenDigest: nil, browser: nil, now: Fixtures.now)
        #expect(s.codeLogin.codeVerifier == nil)
        #expect(
            plan.authorizeURL(secrets: Fixtures.secrets()).contains(
                "code_challenge=\(challenge)&code_challenge_method=S256"))
    }

    @Test(
        "loopback: localhost stays localhost, listened for on 127.0.0.1 and ::1; the URI names the bound port (issue 13 §3)"
    )
    func loopback() throws {
        var plan = try SessionPlan.make(
            Fixtures.request(redirect: "http://localhost/callback"), owner: Fixtures.caller, limits: Limits())
        #expect(
            plan.loopbackBinding == LoopbackBinding(addresses: ["127.0.0.1", "::1"], hostLiteral: "localhost", port: 0))
        plan.bind(port: 51234)
        #expect(plan.redirect.string == "http://localhost:51234/callback")
        #expect(
            plan.authorizeURL(secrets: Fixtures.secrets()).contains(
                "redirect_uri=http%3A%2F%2Flocalhost%3A51234%2Fcallback&"))
        let six = try SessionPlan.make(
            Fixtures.request(redirect: "http://[::1]/callback"), owner: Fixtures.caller, limits: Limits())
        #expect(six.loopbackBinding == LoopbackBinding(addresses: ["::1"], hostLiteral: "[::1]", port: 0))
        let four = try SessionPlan.make(
            Fixtures.request(redirect: "http://127.0.0.1:8123/callback"), owner: Fixtures.caller, limits: Limits())
        #expect(four.loopbackBinding == LoopbackBinding(addresses: ["127.0.0.1"], hostLiteral: "127.0.0.1", port: 8123))
    }

    @Test(
        "issuer: https anywhere, http only on a loopback host (issue 13 §4)",
        arguments: [
            ("https://accounts.example.com", true), ("http://127.0.0.1:4593/api/oidc", true),
            ("http://localhost:8080/realms/dev", true),
            ("http://[::1]:5556/dex", true), ("http://accounts.example.com", false),
            ("http://127.0.0.1.evil.example/x", false),
            ("http://user@127.0.0.1/x", false), ("https://a.example/x?q=1", false), ("ftp://127.0.0.1/x", false),
        ])
    func issuer(_ issuer: String, _ accepted: Bool) throws {
        let result = Result { () throws(RouterError) in
            try SessionPlan.make(Fixtures.request { $0.issuer = issuer }, owner: Fixtures.caller, limits: Limits())
        }
        switch result {
        case .success(let plan): #expect(accepted && plan.issuer == issuer, "\(issuer)")
        case .failure(let e):
            #expect(!accepted && e.message.contains("issuer must be an https URL"), "\(issuer): \(e.message)")
        }
    }

    @Test("adopt mode reads state, redirect and app callback from the backend's URL")
    func adopt() throws {
        let url =
            "https://api.vipps.no/access-management-1.0/access/oauth2/auth?app_callback_uri=https%3A%2F%2Fexample.com%2Fapp-callback&requested_flow=app_to_app&scope=openid&response_type=code&redirect_uri=https%3A%2F%2Fexample.com%2Fapp-callback&code_challenge_method=S256&state=RFiQdrl_lvJUpVmTRSKmsZRGLM0G1N1qh0WebZ1gDNk&nonce=n0nce&client_id=c&code_challenge=abc"
        var r = SessionRequest()
        r.authorizeURL = url
        let plan = try SessionPlan.make(r, owner: Fixtures.caller, limits: Limits())
        #expect(plan.mode == .adopted)
        #expect(plan.adoptedState == "RFiQdrl_lvJUpVmTRSKmsZRGLM0G1N1qh0WebZ1gDNk")
        #expect(plan.redirect.string == "https://example.com/app-callback")
        #expect(plan.appCallback?.string == "https://example.com/app-callback")
        #expect(plan.authorizationOrigin == "https://api.vipps.no")
        let s = plan.makeSession(secrets: Fixtures.secrets(), claimTokenDigest: nil, browser: nil, now: Fixtures.now)
        #expect(
            plan.authorizeURL(secrets: Fixtures.secrets()) == url && s.codeLogin.codeVerifier == nil
                && s.codeLogin.nonce == "n0nce")
    }

    @Test("adopted states are checked; one already in use is refused (D5)")
    func adoptedStates() throws {
        func plan(_ state: String, extra: String = "") throws -> SessionPlan {
            var r = SessionRequest()
            r.authorizeURL =
                "https://as.example/auth?response_type=code&redirect_uri=com.example.app%3A%2Fcb&state=\(state)\(extra)"
            return try SessionPlan.make(r, owner: Fixtures.caller, limits: Limits())
        }
        for bad in ["short", String(repeating: "a", count: 129), "has%20space0123456789", "bad*chars0123456789"] {
            #expect(throws: RouterError.self, "\(bad)") { try plan(bad) }
        }
        #expect(throws: RouterError.self) { try plan("abcdefghijklmnop", extra: "&code_challenge_method=plain") }
        // A challenge with no method is plain (RFC 7636 §4.3): a downgrade, refused (S9).
        #expect(throws: RouterError.self) { try plan("abcdefghijklmnop", extra: "&code_challenge=abc") }
        #expect(
            try plan("abcdefghijklmnop", extra: "&code_challenge=abc&code_challenge_method=S256").clientChallenge
                == "abc")
        #expect(try plan("abcdefghijklmnop").clientChallenge == nil)
        #expect(throws: RouterError.self) { try plan("abcdefghijklmnop", extra: "&requested_flow=app_to_app") }
        let ok = try plan("abcdefghijklmnop")
        var router = Router()
        try router.admit(ok)
        router.insert(
            ok.makeSession(secrets: Fixtures.secrets(), claimTokenDigest: nil, browser: nil, now: Fixtures.now))
        #expect(throws: RouterError.self) { try router.admit(ok) }
    }
}
