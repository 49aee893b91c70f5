/// The events an app causes on its own sessions: begin, wait, acknowledge,
/// cancel, claim. Each returns the transition the daemon carries out; a
/// caller that may not act on a session is refused before anything is
/// decided (threat model D1). A refusal is a transition too (`.refused`).
extension Router {
    /// `BeginSession` (and `Login`): from the call to its session in one
    /// event, or in a few when it must wait for the issuer's metadata or for
    /// its loopback listener (`completed` picks it up again). Nothing is bound,
    /// written or opened that the transition does not name.
    /// With `account`, the login of an account the caller may use (of
    /// `accounts`, every declared one): its provider options are the
    /// account's, and its tokens go to that account only.
    public func beginSession(
        _ request: SessionRequest, inputs: BeginInputs, accounts: [Account] = [], caller: String, login: Bool,
        now: Int64
    ) -> Transition {
        let pending = PendingBegin(request: request, inputs: inputs, caller: caller, login: login)
        var ids = newOperationIDs
        if request.account != nil { return accountCall(.begin(pending), accounts: accounts, caller: caller, now: now) }
        return beginKnown(pending, held: nil, ids: &ids, now: now)
    }

    /// `BeginSession` once its caller may go on: the metadata first, if needed.
    func beginKnown(_ pending: PendingBegin, held: OperationID?, ids: inout OperationIDs, now: Int64) -> Transition {
        let request = pending.request
        if request.device, let e = Self.deviceRefusal(request) { return refuseDevice(pending, held: held, e) }
        if SessionPlan.needsDiscovery(request), let issuer = request.issuer {
            if let held {
                return Transition(
                    core: [.track(held, .begin(pending))], effects: [.start(held, .discover(issuer: issuer))])
            }
            let op = ids.take()
            return Transition(
                core: [.track(op, .begin(pending))], effects: [.start(op, .discover(issuer: issuer))], reply: .held(op))
        }
        return begin(pending, held: held, ids: &ids, now: now)
    }

    /// A begin refused, with nothing kept: its held call hears why, or its reply says it.
    func refusingBegin(held: OperationID?, _ error: RouterError, _ log: LogLine) -> Transition {
        var t = Transition(effects: [.log(log)])
        if let held {
            t.effects.append(.answer(held, .refused(error)))
            t.core.append(.finish(held))
        } else {
            t.reply = .refused(error)
        }
        return t
    }

    /// The rest of a `BeginSession`, with what it waited for in `pending`;
    /// `held` is the operation its call is held under, if it is.
    func begin(_ pending: PendingBegin, held: OperationID?, ids: inout OperationIDs, now: Int64) -> Transition {
        func refuse(_ error: RouterError, _ log: LogLine) -> Transition { refusingBegin(held: held, error, log) }
        if pending.request.device { return beginDevice(pending, held: held, ids: &ids, now: now) }
        let owner = Caller(name: pending.caller, app: callers[pending.caller] ?? .unknown)
        var plan: SessionPlan
        do {
            plan = try SessionPlan.make(pending.request, owner: owner, limits: limits)
            try admit(plan)
        } catch {
            return refuse(error, LogLine(.info, "Refused BeginSession from \(pending.caller): \(error.message)"))
        }
        let secrets: SessionSecrets
        switch pending.inputs.secrets {
        case .success(let s): secrets = s
        case .failure(let e): return refuse(e, LogLine(.error, "Failed to draw session secrets: \(e.message)"))
        }
        if isInUse(state: secrets.state, id: secrets.id) {
            let e = RouterError(
                .internalError, "the daemon drew a state or id already in use (a 256-bit coincidence); try again")
            return refuse(e, LogLine(.error, "Drew a session id or state already in use"))
        }
        if let e = plan.missingDPoPKey(secrets) {
            return refuse(e, LogLine(.error, "BeginSession without a DPoP key for a bound login"))
        }
        var browser: String?
        if plan.openBrowser {
            switch pending.inputs.browser {
            case .success(let id)?: browser = id
            case .failure(let e)?:
                return refuse(e, LogLine(.info, "Refused BeginSession from \(pending.caller): \(e.message)"))
            case nil:
                return refuse(
                    RouterError(.internalError, "no browser was looked up for a session that opens one"),
                    LogLine(.error, "BeginSession without a browser lookup"))
            }
        }
        // A loopback listener is up before the authorize URL exists: it names the port.
        if let binding = plan.loopbackBinding {
            guard let port = pending.port else {
                let op = held ?? ids.take()
                return Transition(
                    core: [.track(op, .begin(pending))],
                    effects: [.start(op, .listen(secrets.id, binding, path: plan.redirect.uri.path))],
                    reply: held == nil ? .held(op) : .none)
            }
            plan.bind(port: port)
        }
        // A pushed request (RFC 9126) goes to the provider before anything is opened or kept.
        if pending.requestURI == nil, let push = plan.pushRequest(secrets: secrets) {
            let op = held ?? ids.take()
            return Transition(
                core: [.track(op, .begin(pending))], effects: [.start(op, .push(push))],
                reply: held == nil ? .held(op) : .none)
        }
        let opened = browser
        let session = plan.makeSession(
            secrets: secrets, claimTokenDigest: pending.inputs.claimTokenDigest, browser: opened, now: now)
        let url = plan.authorizeURL(secrets: secrets, requestURI: pending.requestURI)
        let c = session.code
        let note =
            (plan.restsOnStateAlone
                ? "; the adopted URL carries no PKCE, so the session rests on state alone (threat model S9)" : "")
            + (pending.requestURI != nil ? "; its request pushed to the provider first (RFC 9126)" : "")
            + (c.exchange?.dpop.map { "; its tokens bound to DPoP key \($0.key.thumbprint) (RFC 9449)" } ?? "")
        var t = Transition(
            changes: [.insert(session)], effects: [.scheduleDeadline(session.id, at: deadline(of: session))])
        if let opened { t.effects.append(.openBrowser(url, in: .entry(opened))) }
        if c.redirect.style == .loopback { t.compensation = [.closeListener(session.id)] }
        t.effects.append(
            .log(
                LogLine(
                    .info,
                    "Began \(session.logTag) for \(pending.caller): \(c.source.rawValue), \(c.redirect.style.rawValue) callback \(c.redirect.string)\(c.appCallback.map { ", app callback " + $0.string } ?? "")\(opened.map { ", browser " + $0 } ?? ", no browser opened")\(note)"
                )))
        if pending.login {
            // `Login`: the call goes on waiting, now for the session's result.
            let op = held ?? ids.take()
            t.core.append(.track(op, .wait(session.id, caller: pending.caller, login: true, timer: nil)))
            if held == nil { t.reply = .held(op) }
        } else if let held {
            t.effects.append(.answer(held, .begun(session.id, authorizeURL: url)))
            t.core.append(.finish(held))
        } else {
            t.reply = .begun(session.id, authorizeURL: url)
        }
        return t.then(identifying(pending.caller, &ids))
    }

    /// Finding out the app behind `name`, the first time it owns a session.
    func identifying(_ name: String, _ ids: inout OperationIDs) -> Transition {
        guard callers[name] == nil else { return Transition() }
        let op = ids.take()
        return Transition(
            core: [.caller(name, .unknown), .track(op, .identify(name: name))],
            effects: [.start(op, .identify(name: name))])
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
    /// the call is held. Answering changes nothing: a method reply cannot be
    /// confirmed, so the result stays for the next `Wait` until it is released.
    public func wait(_ id: SessionID, by caller: String, timeoutMilliseconds: UInt32) -> Transition {
        let s: Session
        switch owned(id, by: caller) {
        case .success(let found): s = found
        case .failure(let e): return .refused(e)
        }
        if let answer = s.waitAnswer { return Transition(reply: .waited(answer)) }
        var ids = newOperationIDs
        let op = ids.take()
        guard timeoutMilliseconds > 0 else {
            return Transition(core: [.track(op, .wait(id, caller: caller, login: false, timer: nil))], reply: .held(op))
        }
        let timer = ids.take()
        return Transition(
            core: [
                .track(op, .wait(id, caller: caller, login: false, timer: timer)),
                .track(timer, .waitTimeout(op, milliseconds: timeoutMilliseconds)),
            ],
            effects: [.start(timer, .timer(milliseconds: timeoutMilliseconds))], reply: .held(op))
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
        t.changes = [.update(cancelled)]
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
        var ids = newOperationIDs
        return Transition(
            changes: [.update(claimed)], effects: [.log(LogLine(.info, "\(s.logTag) claimed by \(caller)"))]
        )
        .then(identifying(caller, &ids))
    }
}
