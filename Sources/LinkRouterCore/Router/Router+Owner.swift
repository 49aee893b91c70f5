/// The events an app causes: a begin, and what it does with its own sessions
/// (wait, acknowledge, cancel, claim), its refresh tokens and its accounts.
/// Each returns the transition the daemon carries out; a caller that may not
/// act on a session is refused before anything is decided (threat model D1).
/// A refusal is a transition too (`.refused`).
extension Router {
    /// `BeginSession`, `Login` (`login`), `BeginDeviceLogin` and `BeginLogout`
    /// (`flow`): from the call to its session in one event, or in a few when it
    /// must wait for the issuer's metadata, a listener, a push or device codes
    /// (`Begin`). With `account`, the login of an account the caller may use
    /// (of `accounts`, every declared one): its provider options are the
    /// account's, and its tokens go to that account only.
    public func beginSession(
        _ request: SessionRequest, flow: LoginFlow = .code, inputs: BeginInputs, accounts: [Account] = [],
        caller: String, login: Bool, now: Int64
    ) -> Transition {
        let begin = Begin(request: request, flow: flow, inputs: inputs, caller: caller, login: login)
        var turn = Turn(self, now: now)
        if request.account != nil { return AccountCall.begin(begin).start(accounts: accounts, caller: caller, &turn) }
        return begin.proceed(held: nil, &turn)
    }

    /// A call about accounts (`GetToken`, `SignProof`, `ListAccounts`,
    /// `Logout`, `RejectToken`, `AddAccount`, `RemoveAccount`), with every
    /// declared account: decided now for a known caller, else held while the
    /// caller is identified (`AccountCall`).
    public func accountCall(_ call: AccountCall, accounts: [Account], caller: String, now: Int64) -> Transition {
        var turn = Turn(self, now: now)
        return call.start(accounts: accounts, caller: caller, &turn)
    }

    /// `RefreshTokens(options)`: the issuer's metadata, then the refresh; the call is held for the answer
    /// (`RefreshCall`).
    public func refreshTokens(_ request: RefreshRequest, caller: String) -> Transition {
        var turn = Turn(self, now: 0)
        return RefreshCall.start(request, caller: caller, &turn)
    }

    /// The session, if `caller` owns it (threat model D1: others are refused, whatever they ask).
    public func owned(_ id: SessionID, by caller: String) -> Result<Session, RouterError> {
        guard let s = session(id) else {
            return .failure(
                RouterError(.unknownSession, "no session \(id.rawValue) exists; it may have finished and been purged"))
        }
        guard s.ownerName == caller else {
            return .failure(
                RouterError(
                    .accessDenied,
                    "session \(id.rawValue) belongs to another connection; only the connection that began it (or one that claimed it with its claim_token) may use it"
                ))
        }
        return .success(s)
    }

    /// `Wait(timeout_ms)`: the answer now if the session has finished, else
    /// the call is held. Answering keeps the result: a method reply cannot be
    /// confirmed, so it stays for the next `Wait` until it is released; only the click's token goes with the
    /// first answer (`Session.handedOff`).
    public func wait(_ id: SessionID, by caller: String, timeoutMilliseconds: UInt32) -> Transition {
        let s: Session
        switch owned(id, by: caller) {
        case .success(let found): s = found
        case .failure(let e): return .refused(e)
        }
        if let answer = s.waitAnswer {
            return Transition(changes: s.handOff == nil ? [] : [.handedOff(s.handedOff())], reply: .waited(answer))
        }
        var ids = newOperationIDs
        let op = ids.take()
        guard timeoutMilliseconds > 0 else {
            return Transition(core: [.hold(op, .wait(id, caller: caller, login: false, timer: nil))], reply: .held(op))
        }
        let timer = ids.take()
        return Transition(
            core: [
                .hold(op, .wait(id, caller: caller, login: false, timer: timer)),
                .track(timer, .waitTimer(WaitTimer(wait: op, milliseconds: timeoutMilliseconds))),
            ],
            effects: [.start(timer, .waitTimer(.timer(milliseconds: timeoutMilliseconds)))], reply: .held(op))
    }

    /// `Acknowledge()`: the owner has the result; code and verifier are wiped
    /// now (from memory, the store and its WAL), not when the retention ends.
    public func acknowledge(_ id: SessionID, by caller: String) -> Transition {
        let s: Session
        switch owned(id, by: caller) {
        case .success(let found): s = found
        case .failure(let e): return .refused(e)
        }
        guard s.status.isFinished else {
            return .refused(
                .invalid("the session is still \(s.status.rawValue); acknowledge its result once Wait has returned it"))
        }
        guard s.holdsResult else { return Transition() }
        return Transition(
            changes: [.update(s.releasingResult())],
            effects: [
                .scheduleDeadline(id, at: deadline(of: s.releasingResult())), .checkpoint,
                .log(LogLine(.info, "\(s.logTag): its owner acknowledged the result; code and verifier wiped")),
            ])
    }

    /// `Cancel()`: the session ends; nothing happens if it had already finished.
    public func cancel(_ id: SessionID, by caller: String, now: Int64) -> Transition {
        let s: Session
        switch owned(id, by: caller) {
        case .success(let found): s = found
        case .failure(let e): return .refused(e)
        }
        guard !s.status.isFinished else { return Transition() }
        let cancelled = s.finished(
            .cancelled, failure: SessionFailure(code: .cancelled, message: "the session was cancelled by its owner"),
            now: now)
        var t = finishing(cancelled)
        t.effects.append(.log(LogLine(.info, "Cancelled \(s.logTag) at its owner's request")))
        return t
    }

    /// `Claim(token)`: `tokenDigest` is SHA-256 of what the caller gave; the
    /// comparison is constant-time.
    public func claim(_ id: SessionID, tokenDigest: [UInt8], by caller: String) -> Transition {
        guard let s = session(id) else {
            let e = RouterError(
                .unknownSession, "no session \(id.rawValue) exists; it may have finished and been purged")
            return .refused(e, log: LogLine(.notice, "Refused a claim of \(id.logTag) by \(caller): \(e.message)"))
        }
        guard let want = s.claimTokenDigest, ConstantTime.equals(want, tokenDigest) else {
            let e = RouterError(
                .accessDenied, "the claim token does not match this session's (or it was begun without one)")
            return .refused(e, log: LogLine(.notice, "Refused a claim of \(s.logTag) by \(caller): \(e.message)"))
        }
        var claimed = s
        claimed.owner = Caller(name: caller, app: callers[caller] ?? .unknown)
        var turn = Turn(self, now: 0)
        return Transition(
            changes: [.update(claimed)], effects: [.log(LogLine(.info, "\(s.logTag) claimed by \(caller)"))]
        )
        .then(Identification.start(caller, &turn))
    }
}
