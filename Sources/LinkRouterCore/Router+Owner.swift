/// The events an app causes on its own sessions: begin, wait, cancel, claim.
/// Each returns the transition the daemon carries out; a caller that may not
/// act on a session is refused before anything is decided (threat model D1).
extension Router {
    /// `BeginSession`, once the daemon has drawn the secrets, bound any
    /// loopback port (`plan.bind`) and chosen the browser.
    public func begin(_ plan: SessionPlan, secrets: SessionSecrets, claimTokenDigest: [UInt8]?, browser: String?, now: Int64) -> Transition {
        var session = plan.makeSession(secrets: secrets, claimTokenDigest: claimTokenDigest, now: now)
        session.browser = browser
        let url = plan.authorizeURL(secrets: secrets)
        var effects: [Effect] = [.scheduleDeadline(session.id, at: deadline(of: session))]
        if let browser { effects.append(.openBrowser(url, in: .entry(browser))) }
        let s = session
        let note = plan.restsOnStateAlone ? "; the adopted URL carries no PKCE, so the session rests on state alone (threat model S9)" : ""
        effects.append(.log(LogLine(.info, "Began \(s.logTag) for \(plan.owner): \(s.mode.rawValue), \(s.redirect.style.rawValue) callback \(s.redirect.string)\(s.appCallback.map { ", app callback " + $0.string } ?? "")\(browser.map { ", browser " + $0 } ?? ", no browser opened")\(note)")))
        return Transition(changes: [.insert(session)], effects: effects, reply: .begun(session.id, authorizeURL: url))
    }

    /// The session, if `caller` owns it (threat model D1: others are refused, whatever they ask).
    public func owned(_ id: SessionID, by caller: String) throws(RouterError) -> Session {
        guard let s = session(id) else {
            throw RouterError(.unknownSession, "no session \(id.rawValue) exists; it may have finished and been purged")
        }
        guard s.owner == caller else {
            throw RouterError(.accessDenied, "session \(id.rawValue) belongs to another connection; only the connection that began it (or one that claimed it with its claim_token) may use it")
        }
        return s
    }

    /// `Wait(timeout_ms)`: the answer now if the session has finished, else
    /// the call is parked. Answering changes nothing: a method reply cannot be
    /// confirmed, so the result stays for the next `Wait` until it is released.
    public func wait(_ id: SessionID, by caller: String, timeoutMilliseconds: UInt32) throws(RouterError) -> Transition {
        let s = try owned(id, by: caller)
        guard let answer = s.waitAnswer else {
            return Transition(effects: [.parkWait(id, timeoutMilliseconds: timeoutMilliseconds)])
        }
        return Transition(reply: .waited(answer))
    }

    /// `Acknowledge()`: the owner has the result; code and verifier are wiped
    /// now (from memory, the store and its WAL), not when the retention ends.
    public func acknowledge(_ id: SessionID, by caller: String) throws(RouterError) -> Transition {
        let s = try owned(id, by: caller)
        guard s.status.isFinished else {
            throw .invalid("the session is still \(s.status.rawValue); acknowledge its result once Wait has returned it")
        }
        guard s.holdsResult else { return Transition() }
        return Transition(changes: [.update(s.releasingResult())],
                          effects: [.scheduleDeadline(id, at: deadline(of: s.releasingResult())), .checkpoint,
                                    .log(LogLine(.info, "\(s.logTag): its owner acknowledged the result; code and verifier wiped"))])
    }

    /// `Cancel()`: the session ends; nothing happens if it had already finished.
    public func cancel(_ id: SessionID, by caller: String, now: Int64) throws(RouterError) -> Transition {
        let s = try owned(id, by: caller)
        guard !s.status.isFinished else { return Transition() }
        let cancelled = s.finished(.cancelled, failure: SessionFailure(code: .cancelled, message: "the session was cancelled by its owner"), now: now)
        return Transition(changes: [.update(cancelled)],
                          effects: finishing(cancelled) + [.log(LogLine(.info, "Cancelled \(s.logTag) at its owner's request"))])
    }

    /// `Claim(token)`: `tokenDigest` is SHA-256 of what the caller gave; the
    /// comparison is constant-time.
    public func claim(_ id: SessionID, tokenDigest: [UInt8], by caller: String) throws(RouterError) -> Transition {
        guard let s = session(id) else {
            throw RouterError(.unknownSession, "no session \(id.rawValue) exists; it may have finished and been purged")
        }
        guard let want = s.claimTokenDigest, ConstantTime.equals(want, tokenDigest) else {
            throw RouterError(.accessDenied, "the claim token does not match this session's (or it was begun without one)")
        }
        var claimed = s
        claimed.owner = caller
        return Transition(changes: [.update(claimed)], effects: [.log(LogLine(.info, "\(s.logTag) claimed by \(caller)"))])
    }
}
