import LinkRouterCore

/// Deterministic sessions for the router tests: the core takes its secrets
/// as input, so tests choose them.
enum Fixtures {
    static let now: Int64 = 1_800_000_000
    static let owner = ":1.42"
    static let intruder = ":1.99"

    static func secrets(_ n: Int = 1) -> SessionSecrets {
        let s = String(repeating: "s", count: 40) + String(n)
        return SessionSecrets(
            id: SessionID("id\(n)")!, state: "state-\(s)", nonce: "nonce-\(n)",
            codeVerifier: "verifier-\(String(repeating: "v", count: 40))", codeChallenge: "challenge-\(n)")
    }

    static func request(redirect: String = "com.example.app:/callback", app: String? = nil, configure: (inout SessionRequest) -> Void = { _ in }) -> SessionRequest {
        var r = SessionRequest()
        r.authorizationEndpoint = "https://auth.example.com/authorize"
        r.clientID = "client"
        r.redirectURI = redirect
        r.appCallbackURI = app
        r.openBrowser = false
        configure(&r)
        return r
    }

    /// A router holding one pending session made from `request`.
    static func router(_ request: SessionRequest = request(), n: Int = 1, owner: String = owner, limits: Limits = Limits()) throws -> (Router, Session) {
        var router = Router(limits: limits)
        let s = try session(request, n: n, owner: owner, limits: limits)
        router.insert(s)
        return (router, s)
    }

    /// The authorize URL the session made from `request` would open.
    static func authorizeURL(_ request: SessionRequest, n: Int = 1, port: Int = 49152) throws -> String {
        var plan = try SessionPlan.make(request, owner: owner, limits: Limits())
        if plan.loopbackBinding != nil { plan.bind(port: port) }
        return plan.authorizeURL(secrets: secrets(n))
    }

    static func session(_ request: SessionRequest, n: Int = 1, owner: String = owner, limits: Limits = Limits(), port: Int = 49152) throws -> Session {
        var plan = try SessionPlan.make(request, owner: owner, limits: limits)
        if plan.loopbackBinding != nil { plan.bind(port: port) }
        return plan.makeSession(secrets: secrets(n), claimTokenDigest: nil, now: now)
    }
}

extension RouteDecision {
    var refusal: RouterError? {
        if case .refuse(let e, _) = self { return e }
        return nil
    }
    var refusalCode: RouterError.Code? { refusal?.code }
}
