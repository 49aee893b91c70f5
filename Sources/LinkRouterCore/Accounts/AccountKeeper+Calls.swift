/// What callers ask of an account, answered by its keeper: `GetToken` and `SignProof` from memory or by the
/// account's one flight (`TokenFlight`), `ListAccounts`, `Logout`, `RejectToken`. Each rule reads and updates the
/// account's keeper through the event's `Turn` (a later step of the same event sees an earlier one's).
///
/// The rules are the ones `../shared/reference/secret-service.md` ends with:
/// the new refresh token is written before anyone gets the new access token;
/// a write that fails keeps the set in memory and says so; a refusal of the
/// refresh token (`RefreshRefusal`: `invalid_grant`, `unauthorized_client`, any
/// other 4xx but 408 and 429) ends a sign-in, and only after the keyring was
/// read again (another process may have refreshed), besides, for an
/// account with `dpop=require`, tokens not bound to its key (kept from before,
/// or a refresh answered `Bearer`); a provider that cannot be reached is an
/// error to retry, never a sign-out.
extension AccountKeeper {
    /// `GetToken(account, options)`: from memory when the token has the life
    /// asked for; else the caller waits on the account's flight (one is started
    /// if none is under way). Reached through `AccountCall.carryOn`.
    static func getToken(
        _ account: Account, _ request: TokenRequest, caller: String, held: OperationID?, _ turn: inout Turn
    ) -> Transition {
        // A proof goes with the access token, whatever the account hands out by default.
        let kind: Account.TokenKind =
            request.proof != nil ? .access : request.idToken.map { $0 ? .id : .access } ?? account.token
        let minValid = Int64(request.minValid ?? UInt32(account.minValidSeconds))
        guard minValid <= 3600 else {
            return Transition().answering(
                held, .refused(.invalid("min_valid is at most 3600 seconds, not \(minValid)")))
        }
        let now = turn.now
        let state = turn.keepers[account.key] ?? AccountKeeper(loaded: account.store == .memory)
        // A narrower token (scope, resource, audience): an access token of its own, got with the account's refresh
        // token.
        let target: TokenTarget
        let stepUp: StepUp?
        do throws(RouterError) {
            // Left by a lookup only when no resource was named (a lookup clears it).
            guard request.resourceMetadata == nil else {
                throw .invalid("resource_metadata says where the metadata of the for resource is: give it with for")
            }
            stepUp = try StepUp.make(acrValues: request.acrValues, maxAge: request.maxAge)
            let granted = state.tokens?.scope ?? account.scope
            target = try TokenTarget.make(
                scope: request.scope ?? TokenTarget.within(request.resourceScopes, granted: granted),
                resources: request.resources, audience: request.audience, granted: granted, account: account.name)
            if !target.isOwn, kind == .id || request.proof != nil {
                throw .invalid("a narrower token (scope, resource, audience) is an access token, without a DPoP proof")
            }
            // An account that names the forges it is for answers only for those (issue 36).
            if let url = request.forURL, !account.gitURLs.isEmpty, Account.gitMatch(account.gitURLs, url) == nil {
                throw RouterError(
                    .accessDenied,
                    "\(account.name) answers only for its git_urls (\(account.gitURLs.joined(separator: ", "))), not for \(PercentEncoding.preview(Substring(url)))"
                )
            }
        } catch {
            return Transition().answering(held, .refused(error))
        }
        if state.flight == nil, let kept = state.tokens, let why = unboundUnderRequire(account, kept) {
            // Kept before the account required DPoP (its file changed): not handed out, forgotten and revoked.
            return forgetting(account, why: why, &turn).then(Revoking.start(account, kept, &turn))
                .answering(held, .refused(notSignedIn(account.key, why)))
        }
        // A step-up: no token of a sign-in that is not what was asked, whatever its life (none is refreshed for it).
        // While a flight is under way (a new sign-in's set on its way to the keyring, say), the call waits for it.
        let unmet = state.stepUpRefusal(account.key, stepUp, now: now)
        if let unmet, state.loaded, state.flight == nil { return Transition().answering(held, .refused(unmet)) }
        // A token with the life asked for is handed out from memory, even while the account's flight refreshes ahead
        // of need (the new set is not anyone's until the keyring has it).
        if unmet == nil, state.usable(kind, minValid: minValid, now: now, target: target),
            let tokens = state.set(for: target)
        {
            let answer = tokenReply(
                account.key, tokens, kind: kind, proof: request.proof, warning: state.unsaved.map(unsavedWarning),
                target: target)
            let t = Transition().answering(held, answer)
            // Served from memory, but not yet in the keyring: the write is tried again now.
            guard state.unsaved != nil, account.store == .keyring, state.flight == nil, let tokens = state.tokens
            else { return t }
            return t.then(TokenFlight.writing(tokens, account.key, account: account, state: state, &turn))
        }
        let wait = held ?? turn.ids.take()
        var t = Transition(
            core: [
                .hold(
                    wait,
                    .token(
                        TokenWait(
                            account.key, caller: caller, kind: kind, minValid: minValid, proof: request.proof,
                            interactive: request.interactive == true, target: target, account: account,
                            stepUp: stepUp)))
            ])
        if held == nil { t.reply = .held(wait) }
        guard state.flight == nil else { return t }
        if !state.loaded {
            return t.then(TokenFlight.reading(account.key, account: account, state: state, &turn))
        }
        guard state.tokens?.refreshToken != nil else {
            let why = state.tokens == nil ? nil : "its token expired and it has no refresh token"
            // The person is told (once), with the action that signs in; a caller that signs in itself is its own face.
            let refused = Transition().answering(held, .refused(notSignedIn(account.key, why)))
            guard request.interactive != true else { return refused }
            return refused.then(AccountNotice.asking(account.key, .signIn, why: why ?? "it is not signed in", &turn))
        }
        // A token still live (if short of the life asked for), handed out with why it was not refreshed.
        func live(_ why: String) -> Transition.Reply? {
            guard state.usable(kind, minValid: 1, now: now, target: target), let tokens = state.set(for: target) else {
                return nil
            }
            return tokenReply(account.key, tokens, kind: kind, proof: request.proof, warning: why, target: target)
        }
        // A provider that answered this target with a wider scope does not narrow: each ask would spend a refresh
        // token for a token never handed out, so it is not asked again before the next sign-in.
        if let answered = state.widerAnswers[target] {
            let asked = request.scope ?? target.scope ?? "\(target)"
            return Transition().answering(held, .refused(widerRefusal(account.name, asked: asked, answered: answered)))
        }
        switch state.refreshHold(store: account.store, stopping: turn.core.stopWanted, now: now) {
        case .stopping?:
            // No refresh token is spent while the daemon stops.
            return Transition().answering(held, live(stoppingWhy) ?? .refused(RouterError(.refreshFailed, stoppingWhy)))
        case .backingOff(let until)?:
            // The provider failed lately: not asked again before its time.
            let why =
                "could not refresh \(account.name)'s tokens (\(state.lastFailure ?? "the provider failed")); tried again after \(until - now) s"
            return Transition().answering(held, live(why) ?? .refused(RouterError(.refreshFailed, why)))
        case .keyringLocked?:
            // A live token is handed out with why; with none, the flight's check asks the keyring afresh (it may
            // have been unlocked without a signal) and refuses with KeyringLocked if it still is.
            if let reply = live(lockedWhy) { return Transition().answering(held, reply) }
        case nil:
            break
        }
        return t.then(TokenFlight.refreshing(account, target: target, state: state, &turn))
    }

    static func summaries(_ accounts: [Account], _ turn: Turn) -> [AccountSummary] {
        accounts.map { AccountSummary(account: $0, tokens: turn.keepers[$0.key]) }
    }

    /// The list, once every keyring account has been read in this daemon's
    /// life: those not yet read are read now (a flight each, which `GetToken`
    /// callers share), and the call waits for them (`HeldCall.list`).
    static func listing(_ accounts: [Account], caller: String, held: OperationID?, _ turn: inout Turn) -> Transition {
        var t = Transition()
        var waiting = false
        for a in accounts where a.store == .keyring {
            let state = turn.keepers[a.key] ?? AccountKeeper()
            if state.flight != nil {
                waiting = true
            } else if !state.loaded {
                t = t.then(TokenFlight.reading(a.key, account: a, state: state, &turn))
                waiting = true
            }
        }
        guard waiting else { return t.answering(held, .accounts(summaries(accounts, turn))) }
        let op = held ?? turn.ids.take()
        t.core.append(.hold(op, .list(accounts, caller: caller)))
        if held == nil { t.reply = .held(op) }
        return t
    }

    /// Every held list whose accounts are no longer in flight (as this event left them) is answered.
    static func settlingLists(_ turn: inout Turn) -> Transition {
        var out = Transition()
        for (op, call) in turn.core.held.calls.sorted(by: { $0.key < $1.key }) {
            guard case .list(let accounts, _) = call, accounts.allSatisfy({ turn.keepers[$0.key]?.flight == nil })
            else { continue }
            out.core.append(.finish(op))
            out.effects.append(.answer(op, .accounts(summaries(accounts, turn))))
        }
        return out
    }

    /// `Logout(account)`: the account's tokens forgotten, in memory at once
    /// and in the keyring next (`LogoutCall`). A flight under way lands on
    /// nothing: its waiters hear `NotSignedIn`. Then the tokens are revoked at
    /// the provider where it offers revocation (RFC 7009), and a `Logout`
    /// (`reports`) is answered with what the provider did: the sign-out here
    /// never waits on it, the answer does. With `then` (a `BeginLogout`), the
    /// sign-out at the provider begins once the tokens are forgotten here.
    static func logout(
        _ account: Account, caller: String, held: OperationID?, then: Begin? = nil, reports: Bool = false,
        _ turn: inout Turn
    ) -> Transition {
        let before = turn.keepers[account.key]
        // A sign-in's set still on its way to the keyring is the account's newest: it is the one revoked and named.
        let kept = before?.beingWritten ?? before?.tokens
        var next = then
        if next != nil { next?.flow = .signOut(idTokenHint: kept?.idToken) }
        var t = clearing(account.key, why: "signed out", &turn)
        t.effects.append(.log(LogLine(.info, "\(account.name) signed out by \(caller)")))
        t = t.then(settlingLists(&turn))
        let op = held ?? turn.ids.take()
        if held == nil { t.reply = .held(op) }
        guard account.store == .keyring else {
            return t.then(
                LogoutCall.forgotten(op, account, caller: caller, kept: kept, then: next, reports: reports, &turn))
        }
        let unread = before?.loaded != true
        t.core.append(
            .track(op, .logout(LogoutCall(account: account, caller: caller, then: next, kept: kept, reports: reports))))
        t.effects.append(.start(op, .logout(unread ? .read(account.key) : .delete(account.key))))
        return t
    }

    /// `RejectToken(account, token)`: a server refused this token (git's
    /// `erase` after a 401). If it is the account's current access or ID
    /// token, it is not handed out again: the next `GetToken` refreshes. The
    /// refresh token is kept; any other token is ignored. The refusal is
    /// written to the keyring too (the set with that token's expiry 0), so
    /// no later daemon hands it out again (issue 47); where the keyring
    /// cannot take it, the set waits in memory as any unsaved set does.
    static func rejecting(_ account: Account, _ token: String, _ turn: inout Turn) -> Transition {
        guard var state = turn.keepers[account.key], var t = state.tokens else { return Transition() }
        var own = false
        var narrow = false
        if ConstantTime.equals(t.accessToken, token) {
            t.expiresAt = 0
            own = true
        }
        if let id = t.idToken, ConstantTime.equals(id, token) {
            t.idTokenExpiresAt = 0
            own = true
        }
        for (target, n) in state.narrow where ConstantTime.equals(n.accessToken, token) {
            state.narrow[target] = nil
            narrow = true
        }
        guard own || narrow else { return Transition() }
        state.tokens = t
        let out = Transition(
            core: [turn.set(account.key, state)],
            effects: [
                .log(
                    LogLine(.info, "A token of \(account.name)'s was refused by a server; the next GetToken refreshes"))
            ])
        // A flight under way writes (or reads, keeping the refusal) on its own; narrower tokens live in memory only.
        guard own, account.store == .keyring, state.loaded, state.flight == nil else { return out }
        return out.then(TokenFlight.writing(t, account.key, account: account, state: state, &turn))
    }
}

extension Transition {
    /// With the held call answered: as the transition's own reply when nothing is held.
    func answering(_ held: OperationID?, _ reply: Transition.Reply) -> Transition {
        var t = self
        if let held {
            t.core.append(.finish(held))
            t.effects.append(.answer(held, reply))
        } else {
            t.reply = reply
        }
        return t
    }
}
