/// The events no app asks for: time passing, a client leaving the bus, the
/// daemon starting over its store. Nobody waits for their reply, so a failed
/// write is logged and the change kept in memory (`.keepInMemory`).
extension Router {
    /// A queued deadline came due: the session expires, or is purged, or
    /// nothing happens because its deadline has moved since it was queued.
    public func deadlineReached(_ id: SessionID, now: Int64) -> Transition {
        guard let s = session(id), now >= deadline(of: s) else { return Transition() }
        if !s.status.isFinished {
            let expired = s.finished(.expired, failure: SessionFailure(code: .expired, message: "the session expired before its callback arrived; begin a new one (its ttl was \(s.expiresAt - s.createdAt) s)"), now: now)
            return Transition(changes: [.update(expired)], ifWriteFails: .keepInMemory,
                              effects: finishing(expired) + [.log(LogLine(.info, "\(s.logTag) expired"))])
        }
        // A result nobody acknowledged is let go once the grace period has passed.
        if s.holdsResult {
            let released = s.releasingResult()
            return Transition(changes: [.update(released)], ifWriteFails: .keepInMemory,
                              effects: [.scheduleDeadline(id, at: deadline(of: released)), .checkpoint,
                                        .log(LogLine(.info, "\(s.logTag): its result was not acknowledged within \(limits.gracePeriod) s; code and verifier wiped"))])
        }
        // Its last trace goes, and its object leaves the bus.
        return Transition(changes: [.remove(id)], ifWriteFails: .keepInMemory,
                          effects: [.closeListener(id), .answerWaiters(id), .checkpoint])
    }

    /// The owner's connection left the bus (threat model D2): its waits are
    /// dropped; a session with a claim token is parked for its owner to
    /// claim again; any other is cancelled, and a result it held is wiped.
    public func ownerGone(_ name: String, now: Int64) -> Transition {
        var t = Transition(ifWriteFails: .keepInMemory, effects: [.dropWaits(of: name)])
        for s in sessionsLeft(by: name, now: now) {
            t.changes.append(.update(s))
            if s.claimTokenDigest != nil {
                t.effects.append(.log(LogLine(.info, "The owner of \(s.logTag) left the bus; the session is parked for Claim")))
            } else if session(s.id)?.status.isFinished == false {
                t.effects += finishing(s) + [.log(LogLine(.info, "The owner of \(s.logTag) left the bus; the session is cancelled"))]
            }
        }
        if !t.changes.isEmpty { t.effects.append(.checkpoint) }
        return t
    }

    /// The sessions `name` owned, as they are once it has gone.
    private func sessionsLeft(by name: String, now: Int64) -> [Session] {
        guard ownsSessions(name) else { return [] }
        return all.filter { $0.owner == name }.map { s in
            var t = s
            t.owner = nil
            guard s.claimTokenDigest == nil else { return t }
            if !s.status.isFinished {
                t = t.finished(.cancelled, failure: SessionFailure(code: .cancelled, message: "the session's owner left the bus"), now: now)
            }
            return t.releasingResult()
        }
    }

    /// One row of the store as it comes back at start: taken in at once,
    /// expired first when the wall clock cannot be right (threat model P5).
    public mutating func restore(_ stored: Session, now: Int64) {
        var s = stored
        if !s.status.isFinished && (s.createdAt > now + 300 || s.expiresAt - s.createdAt > Int64(limits.maxTTL)) {
            s = Session.expiredForClock(s, now: now)
        }
        insert(s)
    }

    /// Every row is back: owners that are gone get their sessions parked or
    /// cancelled (as `ownerGone` would, but no one is listening yet), the
    /// loopback sessions listen again, and every session's deadline is queued.
    public func restored(ownersGone: some Sequence<String>, now: Int64) -> Transition {
        var t = Transition(ifWriteFails: .keepInMemory)
        var changed: [SessionID: Session] = [:]
        for name in ownersGone {
            for s in sessionsLeft(by: name, now: now) {
                changed[s.id] = s
                t.changes.append(.update(s))
            }
        }
        for s in all {
            var current = changed[s.id] ?? s
            // Tokens are never stored: a result that held them is gone with the old process.
            if current.exchange != nil && current.holdsResult {
                current = current.finished(.failed, failure: SessionFailure(code: .tokenExchangeFailed, message: "the daemon restarted before the tokens were collected; tokens are never written to disk, so begin a new login"), now: now).wiped()
                changed[s.id] = current
                t.changes.append(.update(current))
            }
            if current.status == .exchanging { t.effects.append(.exchangeCode(s.id)) }
            if !current.status.isFinished && current.redirect.style == .loopback { t.effects.append(.listen(s.id)) }
            t.effects.append(.scheduleDeadline(s.id, at: deadline(of: current)))
        }
        if count > 0 {
            let pending = all.filter { !(changed[$0.id] ?? $0).status.isFinished }.count
            t.effects.append(.log(LogLine(.notice, "Restored \(count) sessions (\(pending) pending)")))
        }
        return t
    }

    /// A restored loopback session whose port could not be had again fails.
    public func listenerFailed(_ id: SessionID, reason: String, now: Int64) -> Transition {
        guard let s = session(id), !s.status.isFinished else { return Transition() }
        let failed = Session.failedListener(s, reason: reason, now: now)
        return Transition(changes: [.update(failed)], ifWriteFails: .keepInMemory,
                          effects: finishing(failed) + [.log(LogLine(.warning, "Could not listen again for \(s.logTag): \(reason); the session failed"))])
    }

    /// The browser that began an app-to-app login could not take `resume_uri`
    /// (its desktop entry is gone, or it would not start). Only that browser
    /// holds the first leg's cookies, so the login cannot go on anywhere: the
    /// session fails, and its owner's `Wait` says why at once instead of at expiry.
    public func resumeBrowserFailed(_ id: SessionID, reason: String, now: Int64) -> Transition {
        guard let s = session(id), !s.status.isFinished else { return Transition() }
        let failed = Session.failedResume(s, reason: reason, now: now)
        return Transition(changes: [.update(failed)], ifWriteFails: .keepInMemory,
                          effects: finishing(failed) + [.log(LogLine(.warning, "Could not reopen resume_uri for \(s.logTag): \(reason); the session failed"))])
    }

    /// The token endpoint answered and every check ran: the session completes
    /// with the tokens (the code and verifier are dropped), or fails with why.
    /// Nothing happens when the session is no longer exchanging (it expired, or
    /// its owner cancelled it meanwhile).
    public func exchanged(_ id: SessionID, _ outcome: Result<TokenSet, SessionFailure>, now: Int64) -> Transition {
        guard let s = session(id), s.status == .exchanging else { return Transition() }
        var done: Session
        switch outcome {
        case .success(let tokens):
            done = s.finished(.completed, failure: nil, now: now)
            done.codeVerifier = nil
            if var r = done.result {
                r.code = ""
                r.codeVerifier = nil
                r.tokens = tokens
                done.result = r
            }
        case .failure(let failure):
            done = s.finished(.failed, failure: failure, now: now).wiped()
        }
        let what = done.status == .completed ? "tokens" : "failed: \(done.failure?.message ?? "")"
        return Transition(changes: [.update(done)], ifWriteFails: .keepInMemory,
                          effects: finishing(done) + [.checkpoint, .log(LogLine(done.status == .completed ? .info : .warning, "Code exchange for \(s.logTag): \(what)"))])
    }
}
