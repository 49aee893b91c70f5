import Testing

@testable import LinkRouterCore

/// DPoP (RFC 9449) in the core: when a login binds its tokens, how the key
/// reaches the authorize URL, the push and the grant, that it is stored with
/// a pending session and wiped when it ends, and what SignProof accepts.
@Suite("DPoP bindings")
struct DPoPBindingTests {
    static let issuer = OpenIDTests.issuer
    static let key = DPoPKey(
        privateJWK: #"{"crv":"P-256","kty":"EC","x":"xx","y":"yy","d":"dd"}"#,
        thumbprint: "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I")!

    /// An account's login (`dpop` set as `use(account)` sets it).
    static func request(_ mode: DPoPBinding.Mode) -> SessionRequest {
        var r = OpenIDTests.exchangeRequest()
        r.dpop = mode
        r.account = "work"
        return r
    }

    /// A provider listing `algorithms` (and a PAR endpoint, when `pushed`).
    static func metadata(algorithms: [String]? = ["ES256"], pushed: Bool = false) -> ProviderMetadata {
        ProviderMetadata(
            issuer: issuer, authorizationEndpoint: issuer + "/auth", tokenEndpoint: issuer + "/token",
            jwksURI: issuer + "/jwks",
            issParameterSupported: true, pushedAuthorizationRequestEndpoint: pushed ? issuer + "/par" : nil,
            dpopSigningAlgorithms: algorithms)
    }

    /// The plan of a login of `mode` at a provider listing `algorithms`.
    static func plan(_ mode: DPoPBinding.Mode, algorithms: [String]? = ["ES256"], pushed: Bool = false) throws
        -> SessionPlan
    {
        try SessionPlan.make(
            request(mode), metadata: metadata(algorithms: algorithms, pushed: pushed), owner: Fixtures.caller,
            limits: Limits())
    }

    static func secrets(key: DPoPKey? = key) -> SessionSecrets {
        var s = Fixtures.secrets(1)
        s.dpopKey = key
        return s
    }

    @Test("the metadata's dpop_signing_alg_values_supported, read as strings or not at all")
    func metadata() throws {
        let listed = OpenIDTests.document {
            $0.append(("dpop_signing_alg_values_supported", .array([.string("ES256"), .string("RS256")])))
        }
        #expect(
            try ProviderMetadata(document: listed, expectedIssuer: Self.issuer, from: "x").dpopSigningAlgorithms == [
                "ES256", "RS256",
            ])
        let odd = OpenIDTests.document {
            $0.append(("dpop_signing_alg_values_supported", .array([.string("ES256"), .integer(1)])))
        }
        #expect(
            try ProviderMetadata(document: odd, expectedIssuer: Self.issuer, from: "x").dpopSigningAlgorithms == nil)
    }

    @Test(
        "auto binds where ES256 is listed, require always (refused where the list lacks ES256), off never; a login that is no account's never"
    )
    func decided() throws {
        func required(_ mode: DPoPBinding.Mode, algorithms: [String]? = ["ES256"]) throws -> Bool? {
            try Self.plan(mode, algorithms: algorithms).dpopRequired
        }
        #expect(try required(.auto) == false)
        #expect(try required(.auto, algorithms: nil) == nil)
        #expect(try required(.auto, algorithms: ["PS256"]) == nil)
        #expect(try required(.require, algorithms: nil) == true)
        #expect(try required(.off) == nil)
        #expect(
            try SessionPlan.make(
                OpenIDTests.exchangeRequest(), metadata: Self.metadata(), owner: Fixtures.caller, limits: Limits()
            ).dpopRequired == nil)
        #expect(throws: RouterError.self) { try required(.require, algorithms: ["RS256"]) }
        #expect(throws: RouterError.self) { try DPoPBinding.Mode(option: "sometimes", name: "dpop") }
    }

    @Test(
        "a bound login: dpop_jkt in the authorize URL (none in a pushed request, whose push carries the key), the binding in its exchange; a key-less bound plan refused; dpop_jkt not an extra parameter"
    )
    func bound() throws {
        let plan = try Self.plan(.auto)
        let url = plan.authorizeURL(secrets: Self.secrets())
        #expect(
            url.contains("&dpop_jkt=" + Self.key.thumbprint) || url.contains("?dpop_jkt=" + Self.key.thumbprint),
            "\(url)")
        let s = plan.makeSession(secrets: Self.secrets(), claimTokenDigest: nil, browser: nil, now: 1_800_000_000)
        #expect(s.codeLogin.exchange?.dpop == DPoPBinding(key: Self.key, required: false))
        #expect(
            plan.missingDPoPKey(Self.secrets()) == nil
                && plan.missingDPoPKey(Self.secrets(key: nil))?.code == .internalError)

        let pushedPlan = try Self.plan(.require, pushed: true)
        let push = try #require(pushedPlan.pushRequest(secrets: Self.secrets()))
        #expect(push.dpop == Self.key && !push.parameters.contains { $0.name == "dpop_jkt" })
        var extra = Self.request(.auto)
        extra.extraParams = ["dpop_jkt": "someone-elses"]
        #expect(throws: RouterError.self) {
            try SessionPlan.make(extra, metadata: Self.metadata(), owner: Fixtures.caller, limits: Limits())
        }
    }

    @Test("the key is stored with a pending session (code and device flows) and wiped when the session ends")
    func stored() throws {
        let s = try Self.plan(.require)
            .makeSession(secrets: Self.secrets(), claimTokenDigest: nil, browser: nil, now: 1_800_000_000)
        let parse: (String, String) -> CallbackURI? = { text, role in try? CallbackURI.parse(text, role: role) }
        let back = try #require(Login(kind: s.login.kind, stored: s.login.stored, parse: parse))
        #expect(back == s.login && back.exchange?.dpop?.key == Self.key && back.exchange?.dpop?.required == true)
        let damaged = s.login.stored.replacing(Self.key.thumbprint, with: "short")
        #expect(Login(kind: "code", stored: damaged, parse: parse) == nil)

        let exchange = TokenExchange(
            clientID: "c", tokenEndpoint: Self.issuer + "/token", jwksURI: Self.issuer + "/jwks", expectsIDToken: false,
            account: "work",
            dpop: DPoPBinding(key: Self.key, required: false))
        let device = Login.device(
            DeviceLogin(
                issuer: Self.issuer, exchange: exchange, deviceCode: "dc", userCode: "ABCD",
                verificationURI: Self.issuer + "/device",
                verificationURIComplete: nil, interval: 5))
        #expect(Login(kind: "device", stored: device.stored, parse: parse) == device)

        let ended = s.releasingResult()
        #expect(ended.login.exchange?.dpop == nil && !ended.login.stored.contains("exchange_dpop"))
    }

    @Test(
        "SignProof's request: a method token, an https URL (http on loopback) without userinfo, a nonce of visible ASCII"
    )
    func proofRequest() throws {
        func checked(_ method: String, _ url: String, nonce: String? = nil) -> Bool {
            var r = ProofRequest(method: method, url: url)
            r.nonce = nonce
            return (try? r.checked(limits: Limits())) != nil
        }
        #expect(checked("GET", "https://api.example/things?page=2#top"))
        #expect(checked("POST", "http://127.0.0.1:8080/x", nonce: "abc.DEF-1"))
        #expect(!checked("G ET", "https://api.example/"))
        #expect(!checked("", "https://api.example/"))
        #expect(!checked("GET", "http://api.example/"))
        #expect(!checked("GET", "https://user:pw@api.example/"))
        #expect(!checked("GET", "api.example/things"))
        #expect(!checked("GET", "https://api.example/", nonce: "a\"b"))
        #expect(!checked("GET", "https://api.example/", nonce: ""))
    }

    /// A bound account login of `mode`, its code routed in: the router and the exchanging session.
    static func exchanging(_ mode: DPoPBinding.Mode) throws -> (Router, Session) {
        let s = try Self.plan(mode)
            .makeSession(secrets: Self.secrets(), claimTokenDigest: nil, browser: nil, now: Fixtures.now)
        var router = Router()
        router.insert(s)
        let t = router.route(
            "com.example.app:/callback?code=c1&state=\(s.codeLogin.state)&iss=\(PercentEncoding.encode(Self.issuer))",
            source: .link, via: "test", now: Fixtures.now)
        router.take(t)
        return (router, try #require(t.session))
    }

    @Test(
        "an account login's answer: under require, token_type Bearer fails it and keeps nothing; a DPoP one completes it, the owner's result without the refresh token, the keyring write with it and the key"
    )
    func accountLoginAnswer() throws {
        var bearer = TokenSet(
            accessToken: "at", tokenType: "Bearer", expiresAt: Fixtures.now + 600, refreshToken: "rt", idToken: nil,
            scope: nil)
        bearer.dpopKey = Self.key
        let (router, s) = try Self.exchanging(.require)
        var turn = Turn(router, now: Fixtures.now)
        let refused = s.exchanged(.success(bearer), &turn)
        let failed = try #require(refused.session)
        #expect(
            failed.status == .failed && failed.failure?.code == .tokenExchangeFailed
                && failed.failure?.message.contains("not DPoP") == true)
        #expect(
            !refused.effects.contains { if case .start(_, .flight(.write)) = $0 { true } else { false } },
            "nothing kept")

        var bound = bearer
        bound.tokenType = "DPoP"
        var again = Turn(router, now: Fixtures.now)
        let done = s.exchanged(.success(bound), &again)
        let completed = try #require(done.session)
        #expect(
            completed.status == .completed && completed.result?.tokens?.refreshToken == nil
                && completed.result?.tokens?.accessToken == "at")
        #expect(
            done.effects.contains {
                if case .start(_, .flight(.write(_, let kept))) = $0 { kept == bound } else { false }
            })
        #expect(completed.login.exchange?.dpop == nil, "the key left the session with the tokens")
    }

    @Test(
        "tokens kept without a key for an account that now requires DPoP: not handed out, forgotten (memory and keyring) and revoked"
    )
    func keptUnbound() throws {
        var r = AccountRequest()
        r.issuer = Self.issuer
        r.clientID = "client"
        r.dpop = "require"
        let account = try Account.make(name: "work", r, owner: .user)
        var router = Router()
        router.apply(core: [.caller(":1.9", .host)])
        let kept = TokenSet(
            accessToken: "at", tokenType: "Bearer", expiresAt: Fixtures.now + 600, refreshToken: "rt", idToken: nil,
            scope: nil)
        router.apply(core: [.account(account.key, AccountKeeper(tokens: kept, loaded: true))])
        let t = router.accountCall(
            .getToken("work", TokenRequest()), accounts: [account], caller: ":1.9", now: Fixtures.now)
        #expect(t.refusal?.code == .notSignedIn && t.refusal?.message.contains("dpop=require") == true, "\(t.reply)")
        let started = t.effects.compactMap { if case .start(_, let o) = $0 { o } else { nil } }
        #expect(
            started.contains(.forgetting(account.key))
                && started.contains(.revoking(.discover(issuer: Self.issuer))),
            "\(started)")
        #expect(t.core.contains(.account(account.key, AccountKeeper(tokens: nil, loaded: true))))
    }
}
