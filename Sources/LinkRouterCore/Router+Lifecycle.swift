/// The events no app asks for: time passing, a client leaving the bus, the
/// daemon starting over its store and stopping. Nobody waits for their
/// reply, so a failed write is logged and the change kept in memory (`.keepInMemory`).
extension Router {
    /// A queued deadline came due: the session expires, or is purged, or
    /// nothing happens because its deadline has moved since it was queued.
    public func deadlineReached(_ id: SessionID, now: Int64) -> Transition {
        guard let s = session(id), now >= deadline(of: s) else { return Transition() }
        if !s.status.isFinished {
            let expired = s.finished(
                .expired,
                failure: SessionFailure(
                    code: .expired,
                    message: s.isCodeFlow
                        ? "the session expired before its callback arrived; begin a new one (its ttl was \(s.expiresAt - s.createdAt) s)"
                        : "the device login was not finished on the other device within \(s.expiresAt - s.createdAt) s; begin a new one"
                ),
                now: now)
            var t = finishing(expired)
            t.changes = [.update(expired)]
            t.ifWriteFails = .keepInMemory
            t.effects.append(.log(LogLine(.info, "\(s.logTag) expired")))
            return t
        }
        // A result nobody acknowledged is let go once the grace period has passed.
        if s.holdsResult {
            let released = s.releasingResult()
            return Transition(
                changes: [.update(released)], ifWriteFails: .keepInMemory,
                effects: [
                    .scheduleDeadline(id, at: deadline(of: released)), .checkpoint,
                    .log(
                        LogLine(
                            .info,
                            "\(s.logTag): its result was not acknowledged within \(limits.gracePeriod) s; code and verifier wiped"
                        )),
                ])
        }
        // Its last trace goes, and its object leaves the bus; a `Wait` still held hears it is gone.
        var t = answeringWaits(of: id, with: .failure(RouterError(.unknownSession, "the session was purged")))
        t.changes = [.remove(id)]
        t.ifWriteFails = .keepInMemory
        t.effects = [.closeListener(id)] + t.effects + [.checkpoint]
        return t
    }

    /// The owner's connection left the bus (threat model D2): its held calls
    /// are dropped, and what it asked for goes on for nobody; a session with a
    /// claim token is parked for its owner to claim again; any other is
    /// cancelled, and a result it held is wiped.
    public func ownerGone(_ name: String, now: Int64) -> Transition {
        var t = Transition(ifWriteFails: .keepInMemory)
        var dropped: Set<OperationID> = []
        for (op, pending) in operations.sorted(by: { $0.key < $1.key }) where pending.caller == name {
            if let goesOn = pending.forNobody(name) {
                t.effects.append(.forget(op))
                t.core.append(.track(op, goesOn))
                continue
            }
            if pending.holdsCall { t.effects.append(.forget(op)) }
            t.core.append(.finish(op))
            dropped.insert(op)
            if case .wait(_, _, _, let timer?) = pending {
                t.effects.append(.cancel(timer))
                t.core.append(.finish(timer))
                dropped.insert(timer)
            }
            if case .begin(let b) = pending {
                // A loopback listener may already be bound for the session that will not be.
                if case .success(let secrets) = b.inputs.secrets { t.effects.append(.closeListener(secrets.id)) }
                t.effects.append(
                    .log(LogLine(.info, "\(name) left the bus while its BeginSession waited; nothing was begun")))
            }
        }
        if callers[name] != nil { t.core.append(.caller(name, nil)) }
        for s in sessionsLeft(by: name, now: now) {
            t.changes.append(.update(s))
            if s.claimTokenDigest != nil {
                t.effects.append(
                    .log(LogLine(.info, "The owner of \(s.logTag) left the bus; the session is parked for Claim")))
            } else if session(s.id)?.status.isFinished == false {
                // The waits it held are dropped above; any other caller's still hear.
                let f = finishing(s)
                t.effects += f.effects.filter { e in
                    switch e {
                    case .answer(let op, _), .cancel(let op): return !dropped.contains(op)
                    default: return true
                    }
                }
                t.core += f.core.filter { if case .finish(let op) = $0 { !dropped.contains(op) } else { true } }
                t.effects.append(
                    .log(LogLine(.info, "The owner of \(s.logTag) left the bus; the session is cancelled")))
            }
        }
        if !t.changes.isEmpty { t.effects.append(.checkpoint) }
        return t
    }

    /// The sessions `name` owned, as they are once it has gone.
    private func sessionsLeft(by name: String, now: Int64) -> [Session] {
        guard ownsSessions(name) else { return [] }
        return all.filter { $0.ownerName == name }.map { s in
            var t = s
            t.owner = nil
            guard s.claimTokenDigest == nil else { return t }
            if !s.status.isFinished {
                t = t.finished(
                    .cancelled, failure: SessionFailure(code: .cancelled, message: "the session's owner left the bus"),
                    now: now)
            }
            return t.releasingResult()
        }
    }

    /// Start-up: the rows of the store come back, expired first when the wall
    /// clock cannot be right (threat model P5); then the daemon asks the bus
    /// who is still on it (`busNames`), and `completed` settles the owners
    /// that left, the listeners and the deadlines.
    public func restore(_ stored: [Session], previousBusID: String?, now: Int64) -> Transition {
        var t = Transition(ifWriteFails: .keepInMemory)
        t.changes.reserveCapacity(stored.count)
        for var s in stored {
            if !s.status.isFinished && (s.createdAt > now + 300 || s.expiresAt - s.createdAt > Int64(limits.maxTTL)) {
                s = Session.expiredForClock(s, now: now)
            }
            t.changes.append(.restore(s))
        }
        var ids = newOperationIDs
        let op = ids.take()
        t.core = [.track(op, .restore(previousBusID: previousBusID))]
        t.effects = [.start(op, .busNames)]
        return t
    }

    /// Every row is back and the bus has said who is on it: owners that are
    /// gone get their sessions parked or cancelled (as `ownerGone` would, but
    /// no one is listening yet), the loopback sessions listen again, every
    /// session's deadline is queued, and the daemon starts serving.
    func restored(previousBusID: String?, bus: BusSnapshot?, now: Int64) -> Transition {
        var t = Transition(ifWriteFails: .keepInMemory)
        // Unique names are reused by a new bus: sessions of another bus keep no owner.
        let sameBus = bus != nil && bus?.id == previousBusID
        var gone: Set<String> = []
        // Read in place (`table[i]`): a copy of each of 10,000 sessions was a fifth of a restore.
        for i in table.indices {
            if let o = table[i].ownerName, !sameBus || !(bus?.names.contains(o) ?? false) { gone.insert(o) }
        }
        var changed: [SessionID: Session] = [:]
        for name in gone {
            for s in sessionsLeft(by: name, now: now) {
                changed[s.id] = s
                t.changes.append(.update(s))
            }
        }
        var ids = newOperationIDs
        t.effects.reserveCapacity(count + 3)
        var pending = 0
        for i in table.indices {
            let unfinished =
                if let c = changed[table[i].id] { restart(c, &t, &ids, now: now) } else {
                    restart(table[i], &t, &ids, now: now)
                }
            if unfinished { pending += 1 }
        }
        // Listed in the executor's order (`Effect.rank`), so it has nothing to sort.
        if let bus { t.effects.append(.recordBusID(bus.id)) }
        if count > 0 {
            let unfinished = pending
            t.effects.append(.log(LogLine(.notice, "Restored \(count) sessions (\(unfinished) pending)")))
        }
        t.effects.append(.serve)
        return t
    }

    /// What a restored session needs again: a result that held tokens fails
    /// (they were never written), an exchange under way starts again, a
    /// loopback session listens again, and its deadline is queued. Whether it is still unfinished.
    private func restart(_ s: borrowing Session, _ t: inout Transition, _ ids: inout OperationIDs, now: Int64) -> Bool {
        var failed: Session?
        // Tokens are never stored: a result that held them is gone with the old process.
        if s.flow.exchange != nil && s.holdsResult {
            let f = (copy s).finished(
                .failed,
                failure: SessionFailure(
                    code: .tokenExchangeFailed,
                    message:
                        "the daemon restarted before the tokens were collected; tokens are never written to disk, so begin a new login"
                ),
                now: now
            ).wiped()
            t.changes.append(.update(f))
            failed = f
        }
        let status = failed?.status ?? s.status
        if status == .exchanging {
            let op = ids.take()
            t.core.append(.track(op, .redeem(s.id)))
            t.effects.append(.start(op, redeem(copy s)))
        }
        if !status.isFinished, case .device(let d) = s.flow {
            // A device grant polls again, after its interval, as if the last poll had said pending.
            let op = ids.take()
            t.core.append(.track(op, .devicePoll(s.id, inFlight: false)))
            t.effects.append(.start(op, .timer(milliseconds: d.interval * 1000)))
        }
        if !status.isFinished, s.isCodeFlow, s.code.redirect.style == .loopback,
            let binding = s.code.redirect.loopbackBinding
        {
            let op = ids.take()
            t.core.append(.track(op, .relisten(s.id)))
            t.effects.append(.start(op, .listen(s.id, binding, path: s.code.redirect.uri.path)))
        }
        t.effects.append(.scheduleDeadline(s.id, at: failed.map { deadline(of: $0) } ?? deadline(of: copy s)))
        return !status.isFinished
    }

    /// A restored loopback session whose port could not be had again fails.
    public func listenerFailed(_ id: SessionID, reason: String, now: Int64) -> Transition {
        guard let s = session(id), !s.status.isFinished else { return Transition() }
        let failed = Session.failedListener(s, reason: reason, now: now)
        var t = finishing(failed)
        t.changes = [.update(failed)]
        t.ifWriteFails = .keepInMemory
        t.effects.append(
            .log(LogLine(.warning, "Could not listen again for \(s.logTag): \(reason); the session failed")))
        return t
    }

    /// The browser that began an app-to-app login could not take `resume_uri`
    /// (its desktop entry is gone, or it would not start). Only that browser
    /// holds the first leg's cookies, so the login cannot go on anywhere: the
    /// session fails, and its owner's `Wait` says why at once instead of at expiry.
    public func resumeBrowserFailed(_ id: SessionID, reason: String, now: Int64) -> Transition {
        guard let s = session(id), !s.status.isFinished else { return Transition() }
        let failed = Session.failedResume(s, reason: reason, now: now)
        var t = finishing(failed)
        t.changes = [.update(failed)]
        t.ifWriteFails = .keepInMemory
        t.effects.append(
            .log(LogLine(.warning, "Could not reopen resume_uri for \(s.logTag): \(reason); the session failed")))
        return t
    }

    /// A fallible effect failed and its transition was undone: what follows.
    /// Only one failure has consequences of its own: `resume_uri` that the
    /// browser which began the login could not take (`resumeBrowserFailed`).
    public func effectFailed(_ effect: Effect, sessions: [SessionID], error: RouterError, now: Int64) -> Transition {
        if case .openBrowser(_, .sameAs) = effect, error.code == .browserFailed, let id = sessions.first {
            return resumeBrowserFailed(id, reason: error.message, now: now)
        }
        return Transition()
    }

    /// The token endpoint answered and every check ran: the session completes
    /// with the tokens (the code and verifier are dropped), or fails with why.
    /// Nothing happens when the session is no longer exchanging (it expired, or
    /// its owner cancelled it meanwhile).
    public func exchanged(_ id: SessionID, _ outcome: Result<TokenSet, SessionFailure>, now: Int64) -> Transition {
        // A code flow's exchange, or a device grant's poll that brought tokens (its session is pending until then).
        guard let s = session(id), s.status == .exchanging || (!s.isCodeFlow && s.status == .pending) else {
            return Transition()
        }
        var outcome = outcome
        if case .success(let tokens) = outcome, s.flow.exchange?.dpop?.required == true,
            let why = DPoPBinding.unbound(tokens)
        {
            outcome = .failure(SessionFailure(code: .tokenExchangeFailed, message: why))
        }
        var done: Session
        switch outcome {
        case .success(let tokens):
            done = s.finished(.completed, failure: nil, now: now)
            done.flow = done.flow.withoutSecrets()
            var r =
                done.result
                ?? AuthorizationResult(
                    code: "", state: "", redirectURI: "", callbackURI: "", issuer: s.flow.issuer, codeVerifier: nil,
                    nonce: nil)
            r.code = ""
            r.codeVerifier = nil
            // An account keeps its refresh token: it never leaves the daemon (its login's caller gets the rest).
            var handed = tokens
            if s.flow.exchange?.account != nil { handed.refreshToken = nil }
            r.tokens = handed
            done.result = r
        case .failure(let failure):
            done = s.finished(.failed, failure: failure, now: now).wiped()
        }
        let what = done.status == .completed ? "tokens" : "failed: \(done.failure?.message ?? "")"
        var t = finishing(done)
        t.changes = [.update(done)]
        t.ifWriteFails = .keepInMemory
        let grant = s.isCodeFlow ? "Code exchange" : "Device grant"
        t.effects += [
            .checkpoint,
            .log(LogLine(done.status == .completed ? .info : .warning, "\(grant) for \(s.logTag): \(what)")),
        ]
        // An account's login: its tokens are kept for every later GetToken.
        if case .success(let tokens) = outcome, let e = s.flow.exchange, let name = e.account,
            let issuer = s.flow.issuer
        {
            var ids = newOperationIDs
            t = t.then(
                keepTokens(
                    tokens, for: AccountKey(qualifiedName: name, issuer: issuer), inMemoryOnly: e.accountInMemory,
                    ids: &ids, now: now))
        }
        return t
    }

    /// The daemon is stopping: every held call hears why (a `Wait` that it may
    /// wait again once the daemon is back), and nothing else changes.
    public func stopping() -> Transition {
        var t = Transition(ifWriteFails: .keepInMemory)
        for (op, pending) in operations.sorted(by: { $0.key < $1.key }) where pending.holdsCall {
            let e: RouterError
            if case .wait = pending {
                e = RouterError(
                    .timeout, "linkrouterd is stopping; the session is kept and can be waited for again once it is back"
                )
            } else {
                e = RouterError(.internalError, "linkrouterd is stopping; try again once it is back")
            }
            t.effects.append(.answer(op, .refused(e)))
            t.core.append(.finish(op))
        }
        return t
    }

    /// The daemon's executable was replaced on disk (a package upgraded it):
    /// restart on the new one as soon as stopping loses nothing
    /// (`restartIfIdle`, asked at the end of every loop turn, so nothing the
    /// rest of this turn starts is cut short).
    public func executableReplaced(_ path: String) -> Transition {
        guard !restartWanted else { return Transition() }
        var t = Transition(ifWriteFails: .keepInMemory)
        t.core = [.restartWhenIdle]
        let lost = whatStoppingLoses()
        let when = lost.isEmpty ? "" : " once nothing is lost by it (now: \(lost.joined(separator: ", ")))"
        t.effects = [.log(LogLine(.notice, "\(path) was replaced; restarting on the new executable\(when)"))]
        return t
    }

    /// While the executable was replaced: how many kinds of work a stop now would cut short
    /// (0 when it was not replaced). The `restart_held_back` counter, so a person or a
    /// test sees an upgrade waiting, and on what, without reading the log.
    public var restartHeldBack: Int { restartWanted ? whatStoppingLoses().count : 0 }

    /// At the end of a loop turn, while a restart waits: restart once stopping loses nothing.
    public func restartIfIdle() -> Transition {
        guard restartWanted, whatStoppingLoses().isEmpty else { return Transition() }
        var t = Transition(ifWriteFails: .keepInMemory)
        t.effects = [.restart]
        return t
    }

    /// What a stop now would lose, one phrase each: operations under way but
    /// held `Wait`s (`PendingOperation.survivesStop`), logins whose tokens
    /// their owner has not collected (the store never has tokens), and
    /// account tokens the keyring has not taken yet. `store=memory` accounts
    /// are not counted: their tokens last the daemon's life, whatever ends it.
    public func whatStoppingLoses() -> [String] {
        var lost: [String] = []
        let busy = operations.values.count { !$0.survivesStop }
        if busy > 0 { lost.append("\(busy) operations under way") }
        let uncollected = table.count { $0.flow.exchange != nil && $0.holdsResult }
        if uncollected > 0 { lost.append("\(uncollected) logins' tokens not yet collected") }
        let unsaved = accountTokens.values.count { $0.unsaved != nil }
        if unsaved > 0 { lost.append("\(unsaved) accounts' tokens not yet in the keyring") }
        return lost
    }
}
