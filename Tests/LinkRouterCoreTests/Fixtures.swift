import Testing

@testable import LinkRouterCore

/// Deterministic sessions for the router tests: the core takes its secrets
/// as input, so tests choose them.
enum Fixtures {
    /// The notification server's unique name in the core's tests.
    static let notificationServer = ":1.2"

    /// Notification `id` as that server shows it.
    static func shown(_ id: UInt32) -> ShownNotification { ShownNotification(id: id, server: notificationServer) }

    static let now: Int64 = 1_800_000_000
    static let owner = ":1.42"
    static let intruder = ":1.99"
    /// The owner as a session records it (its app not found out yet).
    static let caller = Caller(name: owner)

    static func secrets(_ n: Int = 1) -> SessionSecrets {
        let s = String(repeating: "s", count: 40) + String(n)
        return SessionSecrets(
            id: SessionID("id\(n)")!, state: "state-\(s)", nonce: "nonce-\(n)",
            codeVerifier: "verifier-\(String(repeating: "v", count: 40))", codeChallenge: "challenge-\(n)")
    }

    /// What the daemon gathers before `BeginSession` reaches the core: secrets `n`, and the browser if one opens.
    static func inputs(_ n: Int = 1, browser: String? = nil, claimTokenDigest: [UInt8]? = nil) -> BeginInputs {
        BeginInputs(
            secrets: .success(secrets(n)), browser: browser.map { .success($0) }, claimTokenDigest: claimTokenDigest)
    }

    static func request(
        redirect: String = "com.example.app:/callback", app: String? = nil,
        configure: (inout SessionRequest) -> Void = { _ in }
    ) -> SessionRequest {
        var r = SessionRequest()
        r.authorizationEndpoint = "https://auth.example.com/authorize"
        r.clientID = "client"
        r.redirectURI = redirect
        r.appCallbackURI = app
        r.openBrowser = false
        configure(&r)
        return r
    }

    /// What the daemon would have fetched before planning `request`: the test issuer's metadata, when it needs one.
    static func discovered(_ request: SessionRequest) -> ProviderMetadata? {
        SessionPlan.needsDiscovery(request) ? OpenIDTests.metadata : nil
    }

    /// A router holding one pending session made from `request`.
    static func router(
        _ request: SessionRequest = request(), metadata: ProviderMetadata? = nil, n: Int = 1, owner: String = owner,
        limits: Limits = Limits()
    ) throws -> (Router, Session) {
        var router = Router(limits: limits)
        let s = try session(request, metadata: metadata, n: n, owner: owner, limits: limits)
        router.insert(s)
        return (router, s)
    }

    /// The authorize URL the session made from `request` would open.
    static func authorizeURL(
        _ request: SessionRequest, flow: LoginFlow = .code, metadata: ProviderMetadata? = nil, n: Int = 1,
        port: Int = 49152
    ) throws -> String {
        var plan = try SessionPlan.make(
            request, flow: flow, metadata: metadata ?? discovered(request), owner: caller, limits: Limits())
        if plan.loopbackBinding != nil { plan.bind(port: port) }
        return plan.authorizeURL(secrets: secrets(n))
    }

    static func session(
        _ request: SessionRequest, flow: LoginFlow = .code, metadata: ProviderMetadata? = nil, n: Int = 1,
        owner: String = owner, limits: Limits = Limits(), port: Int = 49152
    ) throws -> Session {
        var plan = try SessionPlan.make(
            request, flow: flow, metadata: metadata ?? discovered(request), owner: Caller(name: owner), limits: limits)
        if plan.loopbackBinding != nil { plan.bind(port: port) }
        return plan.makeSession(secrets: secrets(n), claimTokenDigest: nil, browser: nil, now: now)
    }

    /// `session` with a claim token's digest: parked, not cancelled, when its owner leaves.
    static func claimable(_ request: SessionRequest = request(), n: Int, digest: [UInt8], owner: String = owner) throws
        -> Session
    {
        let s = try session(request, n: n, owner: owner)
        return Session(
            id: s.id, owner: s.owner, claimTokenDigest: digest, login: s.login, createdAt: s.createdAt,
            expiresAt: s.expiresAt)
    }

    /// The callback that completes `s` (custom-scheme fixtures) with code `code`.
    static func callback(_ s: Session, code: String = "C") -> String {
        "com.example.app:/callback?code=\(code)&state=\(s.codeLogin.state)"
    }
}

extension RouteDecision {
    var refusal: RouterError? {
        if case .refuse(let e, _) = self { return e }
        return nil
    }
    var refusalCode: RouterError.Code? { refusal?.code }
}

extension Transition {
    /// The operation the caller's call is held under, if it is.
    var held: OperationID? {
        if case .held(let op) = reply { return op }
        return nil
    }

    /// Why the caller was refused, if it was.
    var refusal: RouterError? {
        if case .refused(let e) = reply { return e }
        return nil
    }

    /// The operations this transition starts, in order.
    var started: [OperationID] {
        effects.compactMap { if case .start(let op, _) = $0 { op } else { nil } }
    }

    /// What operation `op` is, if this transition starts it.
    func operation(_ op: OperationID) -> Operation? {
        for case .start(op, let operation) in effects { return operation }
        return nil
    }

    /// The effects that answer held calls.
    var answers: [Effect] {
        effects.filter { if case .answer = $0 { true } else { false } }
    }
}

extension Router {
    /// What the executor does with a transition that went through: the
    /// session changes taken in (step 2), then the core's (step 4).
    mutating func take(_ t: Transition) {
        apply(t.changes)
        apply(core: t.core)
    }

    /// A `Wait` of `caller` on a pending session, held and taken in: its
    /// operation, and its timer's when it has a timeout.
    mutating func holdWait(
        _ id: SessionID, by caller: String = Fixtures.owner, timeout: UInt32 = 0,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (wait: OperationID, timer: OperationID?) {
        let t = wait(id, by: caller, timeoutMilliseconds: timeout)
        let op = try #require(t.held, "the Wait was not held: \(t.reply)", sourceLocation: sourceLocation)
        take(t)
        let timer = t.effects.compactMap { if case .start(let id, .waitTimer) = $0 { id } else { nil } }.first
        return (op, timer)
    }
}

extension Session {
    /// The code login a fixture made (most fixtures here are one); a test of another kind fails here.
    var codeLogin: CodeLogin {
        get {
            guard case .code(let c) = login else { fatalError("\(logTag) is not a code login") }
            return c
        }
        set { login = .code(newValue) }
    }
}

extension Router {
    /// A session put straight into the table, as a restore or a begin would (tests build their world so).
    mutating func insert(_ s: Session) { apply([.insert(s)]) }
}

extension Router {
    /// A changed copy of a session taken in, as the executor would after writing it.
    mutating func replace(_ s: Session) { apply([.update(s)]) }
}

extension Router {
    /// A session gone from the table, as a purge would take it.
    mutating func remove(_ id: SessionID) { apply([.remove(id)]) }

    /// Distinct callbacks and strings the table shares (they go with their sessions).
    var internedCount: Int { sessions.internedCount }

    /// Tokens from the token endpoint for session `id`, as one event of their own.
    func exchanged(_ id: SessionID, _ outcome: Result<TokenSet, SessionFailure>, now: Int64) -> Transition {
        var turn = Turn(self, now: now)
        return session(id)?.exchanged(outcome, &turn) ?? Transition()
    }
}
