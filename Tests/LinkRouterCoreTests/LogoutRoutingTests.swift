import LinkRouterCore
import Testing

/// Signing out at the provider in the core: the end-session URL, and the way
/// back routed by state to the sign-out's session like a login's callback.
@Suite("Sign-outs at the provider")
struct LogoutRoutingTests {
    static let issuer = OpenIDTests.issuer
    let now = Fixtures.now

    /// An account's sign-out once its metadata is in (`use(account)` has filled the provider options).
    static func request(endSession: String? = issuer + "/logout", hint: String? = "id.token.hint") -> SessionRequest {
        var r = OpenIDTests.exchangeRequest()
        r.discovered = ProviderMetadata(
            issuer: issuer, authorizationEndpoint: issuer + "/auth", tokenEndpoint: issuer + "/token",
            jwksURI: issuer + "/jwks",
            issParameterSupported: true, endSessionEndpoint: endSession)
        r.account = "work"
        r.logout = true
        r.idTokenHint = hint
        return r
    }

    @Test(
        "the end-session URL: id_token_hint, client_id, post_logout_redirect_uri and state; no hint when the account had no ID token; none at a provider without the endpoint"
    )
    func url() throws {
        let url = try Fixtures.authorizeURL(Self.request())
        #expect(
            url == Self.issuer
                + "/logout?id_token_hint=id.token.hint&client_id=client&post_logout_redirect_uri=com.example.app%3A%2Fcallback&state="
                + Fixtures.secrets(1).state)
        #expect(!(try Fixtures.authorizeURL(Self.request(hint: nil))).contains("id_token_hint"))
        #expect(throws: RouterError.self) { try Fixtures.authorizeURL(Self.request(endSession: nil)) }
        let s = try Fixtures.session(Self.request())
        #expect(s.code.source == .logout && s.code.codeVerifier == nil && s.code.nonce == nil && s.code.exchange == nil)
        let back = try #require(
            SessionFlow(kind: "code", stored: s.flow.stored) { text, role in
                try? CallbackURI.parse(text, role: role, maxLength: 2048)
            })
        #expect(back == s.flow, "a sign-out is stored and restored like a login")
    }

    @Test(
        "the way back: state alone completes it (no code in the result); a code or resume_uri is refused; error fails it; another state is unknown; a second time is a replay"
    )
    func wayBack() throws {
        let s = try Fixtures.session(Self.request())
        var router = Router()
        router.insert(s)
        let state = s.code.state
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
}
