/// One login in flight, and afterwards its result until it is delivered or purged.
///
/// A value type: the router decides on a copy, the daemon persists the copy,
/// and only then does the router take it in (`Router.replace`). A failed write
/// therefore leaves the session exactly as it was.
public struct Session: Sendable, Equatable {
    /// How the authorize URL came to be.
    public enum Mode: String, Sendable, CaseIterable {
        /// The daemon built it (state, nonce and PKCE are its own).
        case builder
        /// The app's backend built it; the daemon tracks its state and holds no verifier.
        case adopted
    }

    public let id: SessionID
    public let mode: Mode
    /// The unique bus name of the connection that may `Wait`, `Cancel` or list it; nil while parked.
    public var owner: String?
    /// SHA-256 of the client's `claim_token`, when it gave one.
    public let claimTokenDigest: [UInt8]?
    public let state: String
    public let nonce: String?
    public var codeVerifier: String?
    /// The registered callbacks and the origin strings are shared between
    /// sessions that name the same ones (`Router.insert` interns them), so
    /// 10,000 sessions of one app hold one copy.
    public internal(set) var redirect: CallbackURI
    public internal(set) var appCallback: CallbackURI?
    /// `scheme://authority` of the authorization endpoint: `resume_uri` must be on it.
    public internal(set) var authorizationOrigin: String
    public internal(set) var resumeHosts: [String]
    public let resumePathPrefix: String?
    public let resumeMode: ResumeMode
    /// Desktop id of the browser that opened the login (resume goes back to it).
    public var browser: String?
    public internal(set) var issuer: String?
    public let requireIssuer: Bool
    /// Set when the daemon exchanges the code for tokens (boxed: most sessions do not).
    public var exchange: TokenExchange? { exchangeBox?.value }
    private let exchangeBox: Box<TokenExchange>?
    public var status: SessionStatus
    /// The code and the rest, once completed (boxed: most sessions never have one).
    public var result: AuthorizationResult? {
        get { resultBox?.value }
        set { resultBox = newValue.map(Box.init) }
    }
    /// Why it ended without a code (boxed, likewise).
    public var failure: SessionFailure? {
        get { failureBox?.value }
        set { failureBox = newValue.map(Box.init) }
    }
    private var resultBox: Box<AuthorizationResult>?
    private var failureBox: Box<SessionFailure>?
    /// `resume_uri` is opened at most once (threat model R2).
    public var resumeOpened: Bool
    /// The result is gone: the owner acknowledged it, left the bus for good,
    /// or did not collect it in time. Code and verifier are wiped. (A `Wait`
    /// reply cannot be confirmed, so sending the result does not release it.)
    public var released: Bool
    public let createdAt: Int64
    public let expiresAt: Int64
    public var finishedAt: Int64?

    public init(id: SessionID, mode: Mode, owner: String?, claimTokenDigest: [UInt8]?, state: String, nonce: String?,
                codeVerifier: String?, redirect: CallbackURI, appCallback: CallbackURI?,
                authorizationOrigin: String, resumeHosts: [String], resumePathPrefix: String?,
                resumeMode: ResumeMode, browser: String?, issuer: String?, requireIssuer: Bool,
                exchange: TokenExchange? = nil, status: SessionStatus = .pending, result: AuthorizationResult? = nil, failure: SessionFailure? = nil,
                resumeOpened: Bool = false, released: Bool = false, createdAt: Int64, expiresAt: Int64,
                finishedAt: Int64? = nil) {
        self.id = id
        self.mode = mode
        self.owner = owner
        self.claimTokenDigest = claimTokenDigest
        self.state = state
        self.nonce = nonce
        self.codeVerifier = codeVerifier
        self.redirect = redirect
        self.appCallback = appCallback
        self.authorizationOrigin = authorizationOrigin
        self.resumeHosts = resumeHosts
        self.resumePathPrefix = resumePathPrefix
        self.resumeMode = resumeMode
        self.browser = browser
        self.issuer = issuer
        self.requireIssuer = requireIssuer
        self.exchangeBox = exchange.map(Box.init)
        self.status = status
        self.resultBox = result.map(Box.init)
        self.failureBox = failure.map(Box.init)
        self.resumeOpened = resumeOpened
        self.released = released
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.finishedAt = finishedAt
    }

    /// A short, non-reversible tag for logs: never the state itself (threat model conventions).
    public var logTag: String { "session \(id.rawValue.prefix(8))" }

    /// The session ended with `status` and `failure`, at `now`.
    func finished(_ status: SessionStatus, failure: SessionFailure?, now: Int64) -> Session {
        var s = self
        s.status = status
        s.failure = failure
        s.finishedAt = now
        if status != .completed { s.codeVerifier = nil }
        return s
    }

    /// The result is let go: wipe what must not outlive it.
    public func releasingResult() -> Session {
        var s = wiped()
        s.released = true
        return s
    }

    /// Whether the session still holds a result its owner may collect.
    public var holdsResult: Bool { status == .completed && !released }

    /// Code and verifier gone; the record stays so a replay is still known as one.
    func wiped() -> Session {
        var s = self
        s.codeVerifier = nil
        if var r = s.result {
            r.code = ""
            r.codeVerifier = nil
            r.callbackURI = ""
            r.tokens = nil
            s.result = r
        }
        return s
    }

    /// What `Wait` answers for a finished session, or nil while it is unfinished.
    /// The same result, every time, until it is released.
    public var waitAnswer: Result<AuthorizationResult, RouterError>? {
        guard status.isFinished else { return nil }
        if released {
            return .failure(RouterError(.alreadyDelivered, "the result of this session is gone: its owner acknowledged it, or it was not collected in time after the callback; begin a new session"))
        }
        if status == .completed, let r = result { return .success(r) }
        return .failure(failure?.error ?? RouterError(.internalError, "session ended without a result"))
    }
}

/// An immutable value kept out of line (a session's rare, large parts).
final class Box<Value: Sendable & Equatable>: Sendable, Equatable {
    let value: Value
    init(_ value: Value) { self.value = value }
    static func == (a: Box, b: Box) -> Bool { a.value == b.value }
}

extension Session {
    /// Restored with wall-clock times that cannot be right (threat model P5).
    public static func expiredForClock(_ s: Session, now: Int64) -> Session {
        s.finished(.expired, failure: SessionFailure(code: .expired, message: "the session's stored times are inconsistent with the clock (a clock jump?); begin a new one"), now: now)
    }

    /// Restored, but its loopback port could not be listened on again.
    public static func failedListener(_ s: Session, reason: String, now: Int64) -> Session {
        s.finished(.failed, failure: SessionFailure(code: .listenerFailed, message: "after a restart the daemon could not listen on the session's loopback port again (\(reason)); begin a new one"), now: now)
    }

    /// An app step whose `resume_uri` could not reopen in the browser that began the login.
    public static func failedResume(_ s: Session, reason: String, now: Int64) -> Session {
        s.finished(.failed, failure: SessionFailure(code: .browserFailed, message: "\(reason); the login's cookies are in that browser only, so begin a new login"), now: now)
    }
}
