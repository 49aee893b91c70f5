/// What ends or moves a session, whatever its kind of login: a deadline, a
/// listener or a browser that failed, tokens that came. A session that
/// finishes closes its listener, answers its held `Wait`s, tells the bus, and
/// has its purge timed (`finishing`).
extension Router {
    /// Checks that `plan` may become a session now: limits, and that an
    /// adopted state is not already in use (no session fixation, threat model D5).
    public func admit(_ plan: SessionPlan) throws(RouterError) {
        try admit(owner: plan.owner.name)
        if let state = plan.adoptedState, sessions.hasState(state) {
            throw .invalid(
                "the adopted state is already in use by another session; a backend must make a fresh state for every login"
            )
        }
    }

    /// The limits on unfinished sessions, for one more of `owner`'s.
    func admit(owner: String) throws(RouterError) {
        if sessions.pendingCount >= limits.maxPendingTotal {
            throw RouterError(
                .limitsExceeded,
                "the daemon already holds \(sessions.pendingCount) unfinished sessions, its limit; finish or cancel some first"
            )
        }
        if sessions.pending(ownedBy: owner) >= limits.maxPendingPerOwner {
            throw RouterError(
                .limitsExceeded,
                "this connection already holds \(limits.maxPendingPerOwner) unfinished sessions, the per-client limit; finish or cancel some first"
            )
        }
    }

    /// When a session should next be looked at: its expiry while unfinished;
    /// the release of a result nobody acknowledged (`gracePeriod` after the
    /// callback); its purge (after its ttl and the grace period).
    public func deadline(of s: Session) -> Int64 {
        guard s.status.isFinished else { return s.expiresAt }
        let graceEnds = (s.finishedAt ?? 0) + limits.gracePeriod
        return s.holdsResult ? graceEnds : max(s.expiresAt, graceEnds)
    }

    /// What a session that just finished does: it is written, its listener closes, its held
    /// `Wait`s hear (the first of them with the click's token, `Session.handedOff`), the bus is told, and its purge
    /// is timed.
    func finishing(_ s: Session) -> Transition {
        let handedOff = s.handedOff()
        let answer =
            handedOff.waitAnswer ?? .failure(RouterError(.internalError, "the session ended without a result"))
        var t = answeringWaits(of: s.id, with: answer, handOff: s.handOff)
        // Nobody waits yet: the token stays for the first `Wait` to come.
        t.changes = [.update(held.waits(on: s.id).isEmpty ? s : handedOff)]
        t.effects =
            [.closeListener(s.id)] + t.effects + [
                .emitStatus(s.id, s.status), .scheduleDeadline(s.id, at: deadline(of: s)),
            ]
        // A device login's poll stops with it (its timer cancelled; an answer in flight then finds nothing).
        if case .device = s.login {
            for (op, machine) in running {
                guard case .login(s.id, _) = machine else { continue }
                t.effects.append(.cancel(op))
                t.core.append(.finish(op))
            }
        }
        return t
    }

    /// Every held `Wait` of the session hears `answer`, the first with `handOff` (the click's token) in it; their
    /// timers stop.
    func answeringWaits(
        of id: SessionID, with answer: Result<AuthorizationResult, RouterError>, handOff: String? = nil
    ) -> Transition {
        var t = Transition()
        var handOff = handOff
        for op in held.waits(on: id) {
            guard case .wait(_, _, let login, let timer)? = held[op] else { continue }
            var answer = answer
            if case .success(var r) = answer, let token = handOff {
                r.activationToken = token
                answer = .success(r)
                handOff = nil
            }
            t.effects.append(.answer(op, login ? .loggedIn(id, answer) : .waited(answer)))
            t.core.append(.finish(op))
            if let timer {
                t.effects.append(.cancel(timer))
                t.core.append(.finish(timer))
            }
        }
        return t
    }

    /// A queued deadline came due: the session expires, or is purged, or
    /// nothing happens because its deadline has moved since it was queued.
    public func deadlineReached(_ id: SessionID, now: Int64) -> Transition {
        guard let s = session(id), now >= deadline(of: s) else { return Transition() }
        if !s.status.isFinished {
            let message =
                if case .device = s.login {
                    "the device login was not finished on the other device within \(s.expiresAt - s.createdAt) s; begin a new one"
                } else {
                    "the session expired before its callback arrived; begin a new one (its ttl was \(s.expiresAt - s.createdAt) s)"
                }
            let expired = s.finished(.expired, failure: SessionFailure(code: .expired, message: message), now: now)
            var t = finishing(expired)
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

    /// A restored browser login's listener is up again (its operation done), or the session fails.
    func relistened(_ id: SessionID, _ r: Result<Int, RouterError>, op: OperationID, now: Int64) -> Transition {
        let done = Transition(core: [.finish(op)])
        guard case .failure(let e) = r else { return done }
        return done.then(listenerFailed(id, reason: e.message, now: now))
    }

    /// A restored loopback session whose port could not be had again fails.
    public func listenerFailed(_ id: SessionID, reason: String, now: Int64) -> Transition {
        failing(id, now: now) { s in
            (Session.failedListener(s, reason: reason, now: now), "Could not listen again for \(s.logTag): \(reason)")
        }
    }

    /// The browser that began an app-to-app login could not take `resume_uri`
    /// (its desktop entry is gone, or it would not start). Only that browser
    /// holds the first leg's cookies, so the login cannot go on anywhere: the
    /// session fails, and its owner's `Wait` says why at once instead of at expiry.
    public func resumeBrowserFailed(_ id: SessionID, reason: String, now: Int64) -> Transition {
        failing(id, now: now) { s in
            (
                Session.failedResume(s, reason: reason, now: now),
                "Could not reopen resume_uri for \(s.logTag): \(reason)"
            )
        }
    }

    /// An unfinished session that something outside the core let down fails, kept in memory if its write
    /// fails (nobody else would hear), with a warning that says what failed.
    private func failing(_ id: SessionID, now: Int64, _ fail: (Session) -> (Session, String)) -> Transition {
        guard let s = session(id), !s.status.isFinished else { return Transition() }
        let (failed, what) = fail(s)
        var t = finishing(failed)
        t.ifWriteFails = .keepInMemory
        t.effects.append(.log(LogLine(.warning, what + "; the session failed")))
        return t
    }

    /// A fallible effect failed and its transition (`undone`: its session changes) was undone: what follows.
    /// Two failures have consequences of their own: `resume_uri` that the
    /// browser which began the login could not take (`resumeBrowserFailed`), and the browser of a sign-in the
    /// person began from its notice (no caller would hear: the person is told, `AccountNotice.signInFailed`).
    public func effectFailed(_ effect: Effect, undone: [SessionChange], error: RouterError, now: Int64) -> Transition {
        guard case .openBrowser(_, let choice, _) = effect, error.code == .browserFailed else { return Transition() }
        if case .sameAs = choice, let id = undone.first?.id {
            return resumeBrowserFailed(id, reason: error.message, now: now)
        }
        for case .insert(let s) in undone where s.owner?.isThePerson == true {
            guard case .code(let login) = s.login, let account = login.exchange?.account else { continue }
            return Transition(effects: [
                AccountNotice.signInFailed(account, why: error.message),
                .log(LogLine(.warning, "Could not open the browser for \(account)'s sign-in: \(error.message)")),
            ])
        }
        return Transition()
    }
}
