/// One login in flight, and afterwards its result until it is delivered or
/// purged: a header every login has (who, where it is, when, how it ended)
/// and the login itself, whose kind says what it remembers and how it goes on (`Login`).
///
/// A value type: the router decides on a copy, the daemon persists the copy,
/// and only then does the router take it in (`Router.replace`). A failed write
/// therefore leaves the session exactly as it was.
public struct Session: Sendable, Equatable {
    public let id: SessionID
    /// The connection that may `Wait`, `Cancel` or list it (and its app, once known); nil while parked.
    public var owner: Caller?
    /// SHA-256 of the client's `claim_token`, when it gave one.
    public let claimTokenDigest: [UInt8]?
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
    /// The result is gone: the owner acknowledged it, left the bus for good,
    /// or did not collect it in time. Code and verifier are wiped. (A `Wait`
    /// reply cannot be confirmed, so sending the result does not release it.)
    public var released: Bool
    public let createdAt: Int64
    public let expiresAt: Int64
    public var finishedAt: Int64?
    public var login: Login
    /// The activation token of the click that brought its callback, for the owner's window (`Wait`'s
    /// `activation_token`). Memory only: the store never writes it, and a session read back has none.
    public var handOff: String?

    public init(
        id: SessionID, owner: Caller?, claimTokenDigest: [UInt8]?, login: Login, status: SessionStatus = .pending,
        result: AuthorizationResult? = nil, failure: SessionFailure? = nil, released: Bool = false,
        createdAt: Int64, expiresAt: Int64, finishedAt: Int64? = nil
    ) {
        self.id = id
        self.owner = owner
        self.claimTokenDigest = claimTokenDigest
        self.login = login
        self.status = status
        self.resultBox = result.map(Box.init)
        self.failureBox = failure.map(Box.init)
        self.released = released
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.finishedAt = finishedAt
    }

    /// The same session once a `Wait` has been answered with its result: the click's token goes with one answer
    /// only. An xdg-activation token is spent by the window that uses it (a compositor refuses it a second time),
    /// and a `Wait` long after the click would hand over a stale one; the result itself stays until released.
    public func handedOff() -> Session {
        var s = self
        s.handOff = nil
        return s
    }

    /// The same session, with the token of the click that brought its callback (`handOff`).
    func handingOff(_ click: ActivationContext) -> Session {
        var s = self
        s.handOff = click.token
        return s
    }

    /// The owner's unique bus name, if it has one.
    public var ownerName: String? { owner?.name }

    /// A short, non-reversible tag for logs: never the state itself (threat model conventions).
    public var logTag: String { id.logTag }

    /// The session ended with `status` and `failure`, at `now`.
    func finished(_ status: SessionStatus, failure: SessionFailure?, now: Int64) -> Session {
        var s = self
        s.status = status
        s.failure = failure
        s.finishedAt = now
        // A completed code login keeps its verifier for its owner's `Wait` until the result is released.
        if case .code = s.login, status == .completed {} else { s.login = s.login.withoutSecrets() }
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
        s.login = s.login.withoutSecrets()
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
            return .failure(
                RouterError(
                    .alreadyDelivered,
                    "the result of this session is gone: its owner acknowledged it, or it was not collected in time after the callback; begin a new session"
                ))
        }
        if status == .completed, var r = result {
            r.activationToken = handOff
            return .success(r)
        }
        return .failure(failure?.error ?? RouterError(.internalError, "session ended without a result"))
    }
}

extension SessionID {
    /// A short, non-reversible tag for logs (the id's first characters).
    public var logTag: String { "session \(rawValue.prefix(8))" }
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
        s.finished(
            .expired,
            failure: SessionFailure(
                code: .expired,
                message: "the session's stored times are inconsistent with the clock (a clock jump?); begin a new one"),
            now: now)
    }

    /// Restored, but its loopback port could not be listened on again.
    public static func failedListener(_ s: Session, reason: String, now: Int64) -> Session {
        s.finished(
            .failed,
            failure: SessionFailure(
                code: .listenerFailed,
                message:
                    "after a restart the daemon could not listen on the session's loopback port again (\(reason)); begin a new one"
            ), now: now)
    }

    /// An app step whose `resume_uri` could not reopen in the browser that began the login.
    public static func failedResume(_ s: Session, reason: String, now: Int64) -> Session {
        s.finished(
            .failed,
            failure: SessionFailure(
                code: .browserFailed,
                message: "\(reason); the login's cookies are in that browser only, so begin a new login"), now: now)
    }
}
