import Testing

@testable import LinkRouterCore

/// Signing out at the provider in the core: the end-session URL, and the way
/// back routed by state to the sign-out's session like a login's callback.
@Suite("Sign-outs at the provider")
struct LogoutRoutingTests {
    static let issuer = OpenIDTests.issuer
    let now = Fixtures.now

    /// An account's sign-out (`use(account)` has filled the provider options).
    static func request() -> SessionRequest {
        var r = OpenIDTests.exchangeRequest()
        r.account = "work"
        return r
    }

    /// The provider's metadata, with its end-session endpoint.
    static func metadata(endSession: String? = issuer + "/logout") -> ProviderMetadata {
        ProviderMetadata(
            issuer: issuer, authorizationEndpoint: issuer + "/auth", tokenEndpoint: issuer + "/token",
            jwksURI: issuer + "/jwks", issParameterSupported: true, endSessionEndpoint: endSession)
    }

    /// The sign-out of an account whose ID token is `hint`.
    static func session(hint: String? = "id.token.hint") throws -> Session {
        try Fixtures.session(request(), flow: .signOut(idTokenHint: hint), metadata: metadata())
    }

    @Test(
        "the end-session URL: id_token_hint, client_id, post_logout_redirect_uri and state; no hint when the account had no ID token; none at a provider without the endpoint"
    )
    func url() throws {
        let url = try Fixtures.authorizeURL(
            Self.request(), flow: .signOut(idTokenHint: "id.token.hint"), metadata: Self.metadata())
        #expect(
            url == Self.issuer
                + "/logout?id_token_hint=id.token.hint&client_id=client&post_logout_redirect_uri=com.example.app%3A%2Fcallback&state="
                + Fixtures.secrets(1).state)
        #expect(
            !(try Fixtures.authorizeURL(Self.request(), flow: .signOut(idTokenHint: nil), metadata: Self.metadata()))
                .contains("id_token_hint"))
        #expect(throws: RouterError.self) {
            try Fixtures.authorizeURL(
                Self.request(), flow: .signOut(idTokenHint: nil), metadata: Self.metadata(endSession: nil))
        }
        let s = try Self.session()
        guard case .signOut(let out) = s.login else { throw Failure("not a sign-out: \(s.login)") }
        #expect(out.state == Fixtures.secrets(1).state && out.redirect.string == "com.example.app:/callback")
        #expect(s.login.exchange == nil && s.login.kind == "signout")
        let parse: (String, String) -> CallbackURI? = { text, role in try? CallbackURI.parse(text, role: role) }
        let back = try #require(Login(kind: "signout", stored: s.login.stored, parse: parse))
        #expect(back == s.login, "a sign-out is stored and restored like a login")
        // A sign-out a previous version stored, as a code login of source `logout`, reads back as one.
        let former =
            "v=1\nsource=logout\nstate=\(out.state)\nredirect=com.example.app:/callback\norigin=https://x"
            + "\nresume=none\nissuer=\(Self.issuer)"
        #expect(Login(kind: "code", stored: former, parse: parse) == s.login.withBrowser(nil))
    }

    @Test(
        "the way back: state alone completes it (no code in the result); a code or resume_uri is refused; error fails it; another state is unknown; a second time is a replay"
    )
    func wayBack() throws {
        let s = try Self.session()
        var router = Router()
        router.insert(s)
        let state = try #require(s.login.state)
        #expect(
            router.decide("com.example.app:/callback?state=\(state)&code=c", source: .link, now: now).refusalCode
                == .invalidArgument)
        #expect(
            router.decide(
                "com.example.app:/callback?state=\(state)&resume_uri=https%3A%2F%2Fx.example%2F", source: .link,
                now: now
            ).refusalCode == .invalidArgument)
        #expect(
            router.decide("com.example.app:/other?state=\(state)", source: .link, now: now).refusalCode
                == .callbackMismatch)
        #expect(
            router.decide(
                "com.example.app:/callback?state=" + String(repeating: "A", count: 43), source: .link, now: now
            ).refusalCode == .unknownState)
        guard
            case .fail(let failed) = router.decide(
                "com.example.app:/callback?state=\(state)&error=access_denied", source: .link, now: now)
        else {
            Issue.record("error did not fail the sign-out")
            return
        }
        #expect(failed.failure?.code == .authorizationFailed)
        let t = router.route("com.example.app:/callback?state=\(state)", source: .link, via: "test", now: now)
        let done = try #require(t.session)
        #expect(
            done.status == .completed && done.result?.code == ""
                && done.result?.callbackURI == "com.example.app:/callback?state=\(state)")
        #expect(t.reply == .routed(.completed))
        router.take(t)
        #expect(
            router.decide("com.example.app:/callback?state=\(state)", source: .link, now: now).refusalCode == .replayed)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }
}

extension Login {
    /// The same login opened in `browser` (a sign-out's stored form from before named none).
    fileprivate func withBrowser(_ browser: String?) -> Login {
        guard case .signOut(var s) = self else { return self }
        s.browser = browser
        return .signOut(s)
    }
}
