/// Accounts' tokens: `GetToken`, and the one flight per account (a keyring
/// read, a refresh, a keyring write) that every caller waits on. The rules
/// are the ones `../shared/reference/secret-service.md` ends with: the new
/// refresh token is written before anyone gets the new access token; a write
/// that fails keeps the set in memory and says so; only `invalid_grant` and
/// `unauthorized_client` end a sign-in, and only after the keyring was read
/// again (another process may have refreshed), besides, for an account with
/// `dpop=require`, tokens not bound to its key (kept from before, or a refresh
/// answered `Bearer`); a provider that cannot be reached is an error to retry, never a sign-out.
extension Router {
    /// `GetToken(account, options)`: from memory when the token has the life
    /// asked for; else the caller waits on the account's flight (one is started
    /// if none is under way). Reached through `accountCall`.
    func getToken(
        _ account: Account, _ request: TokenRequest, caller: String, held: OperationID?, ids: inout OperationIDs,
        states: inout [AccountKey: AccountTokens],
        now: Int64
    ) -> Transition {
        func refuse(_ e: RouterError) -> Transition {
            guard let held else { return .refused(e) }
            return Transition(core: [.finish(held)], effects: [.answer(held, .refused(e))])
        }
        // A proof goes with the access token, whatever the account hands out by default.
        let kind: Account.TokenKind =
            request.proof != nil ? .access : request.idToken.map { $0 ? .id : .access } ?? account.token
        let minValid = Int64(request.minValid ?? UInt32(account.minValidSeconds))
        guard minValid <= 3600 else { return refuse(.invalid("min_valid is at most 3600 seconds, not \(minValid)")) }
        var state = states[account.key] ?? AccountTokens(loaded: account.store == .memory)
        if state.flight == nil, let kept = state.tokens, let why = Self.unboundUnderRequire(account, kept) {
            // Kept before the account required DPoP (its file changed): not handed out, forgotten and revoked.
            return forgetting(account, why: why, states: &states, ids: &ids).then(revoking(account, kept, ids: &ids))
                .answering(held, .refused(Self.notSignedIn(account.key, why)))
        }
        if state.flight == nil, state.usable(kind, minValid: minValid, now: now), let tokens = state.tokens {
            let answer = Self.tokenReply(
                account.key, tokens, kind: kind, proof: request.proof, warning: state.unsaved.map(Self.unsavedWarning))
            var t =
                held.map { Transition(core: [.finish($0)], effects: [.answer($0, answer)]) }
                ?? Transition(reply: answer)
            // Served from memory, but not yet in the keyring: the write is tried again now.
            if state.unsaved != nil, account.store == .keyring {
                let flight = ids.take()
                state.flight = flight
                states[account.key] = state
                t.core += [
                    .track(
                        flight, .tokenFlight(TokenFlight(key: account.key, account: account, stage: .writing(tokens)))),
                    .account(account.key, state),
                ]
                t.effects.append(.start(flight, .keyringWrite(account.key, tokens)))
            }
            return t
        }
        let wait = held ?? ids.take()
        var t = Transition(core: [
            .track(wait, .tokenWait(account.key, caller: caller, kind: kind, minValid: minValid, proof: request.proof))
        ])
        if held == nil { t.reply = .held(wait) }
        guard state.flight == nil else { return t }
        let flight = ids.take()
        if !state.loaded {
            t.core.append(
                .track(flight, .tokenFlight(TokenFlight(key: account.key, account: account, stage: .reading))))
            t.effects.append(.start(flight, .keyringRead(account.key)))
        } else if state.tokens?.refreshToken != nil {
            // The provider failed lately: not asked again before its time. A token still live is handed out, with why
            // it was not refreshed.
            if let retryAt = state.retryAt, now < retryAt {
                let why =
                    "could not refresh \(account.name)'s tokens (\(state.lastFailure ?? "the provider failed")); tried again after \(retryAt - now) s"
                guard state.usable(kind, minValid: 1, now: now), let tokens = state.tokens else {
                    return refuse(RouterError(.refreshFailed, why))
                }
                let answer = Self.tokenReply(account.key, tokens, kind: kind, proof: request.proof, warning: why)
                return held.map { Transition(core: [.finish($0)], effects: [.answer($0, answer)]) }
                    ?? Transition(reply: answer)
            }
            t.core.append(
                .track(flight, .tokenFlight(TokenFlight(key: account.key, account: account, stage: .discovering))))
            t.effects.append(.start(flight, .discover(issuer: account.issuer)))
        } else {
            return refuse(
                Self.notSignedIn(
                    account.key, state.tokens == nil ? nil : "its token expired and it has no refresh token"))
        }
        state.flight = flight
        states[account.key] = state
        t.core.append(.account(account.key, state))
        return t
    }

    func summaries(_ accounts: [Account], _ states: [AccountKey: AccountTokens]? = nil) -> [AccountSummary] {
        accounts.map { AccountSummary(account: $0, tokens: (states ?? accountTokens)[$0.key]) }
    }

    /// The list, once every keyring account has been read in this daemon's
    /// life: those not yet read are read now (a flight each, which `GetToken`
    /// callers share), and the call waits for them (`.listWait`).
    func listing(
        _ accounts: [Account], caller: String, held: OperationID?, ids: inout OperationIDs,
        states: inout [AccountKey: AccountTokens]
    ) -> Transition {
        var t = Transition()
        var waiting = false
        for a in accounts where a.store == .keyring {
            var state = states[a.key] ?? AccountTokens()
            if state.flight != nil {
                waiting = true
            } else if !state.loaded {
                let flight = ids.take()
                state.flight = flight
                states[a.key] = state
                t.core += [
                    .track(flight, .tokenFlight(TokenFlight(key: a.key, account: a, stage: .reading))),
                    .account(a.key, state),
                ]
                t.effects.append(.start(flight, .keyringRead(a.key)))
                waiting = true
            }
        }
        guard waiting else {
            guard let held else { return Transition(reply: .accounts(summaries(accounts, states))) }
            return Transition(core: [.finish(held)], effects: [.answer(held, .accounts(summaries(accounts, states)))])
        }
        let op = held ?? ids.take()
        t.core.append(.track(op, .listWait(accounts, caller: caller)))
        if held == nil { t.reply = .held(op) }
        return t
    }

    /// After a flight's step `t`: every held list whose accounts are no longer in flight is answered.
    func settlingLists(after t: Transition) -> Transition {
        var states = accountTokens
        for case .account(let key, let state) in t.core { states[key] = state }
        var out = Transition()
        for (op, pending) in operations.sorted(by: { $0.key < $1.key }) {
            guard case .listWait(let accounts, _) = pending, accounts.allSatisfy({ states[$0.key]?.flight == nil })
            else { continue }
            out.core.append(.finish(op))
            out.effects.append(.answer(op, .accounts(summaries(accounts, states))))
        }
        return out
    }

    /// `Logout(account)`: the account's tokens forgotten, in memory at once
    /// and in the keyring before the call is answered. A flight under way
    /// lands on nothing: its waiters hear `NotSignedIn`. The tokens are
    /// revoked at the provider too where it offers revocation (RFC 7009),
    /// after the answer and whatever the provider says: signing out here
    /// never waits on a provider. Tokens the daemon has not read yet are read first, to be revoked.
    /// With `then` (a `BeginLogout`), the sign-out at the provider begins once the tokens are forgotten here.
    func logout(
        _ account: Account, caller: String, held: OperationID?, ids: inout OperationIDs,
        states: inout [AccountKey: AccountTokens],
        then: (begin: PendingBegin, now: Int64)? = nil
    ) -> Transition {
        let before = states[account.key]
        // A sign-in's set still on its way to the keyring is the account's newest: it is the one revoked and named.
        let kept = writing(account.key) ?? before?.tokens
        var next = then?.begin
        next?.request.idTokenHint = kept?.idToken
        var t = clearing(account.key, why: "signed out", states: &states)
        t.effects.append(.log(LogLine(.info, "\(account.name) signed out by \(caller)")))
        if let kept { t = t.then(revoking(account, kept, ids: &ids)) }
        guard account.store == .keyring else {
            if let next, let now = then?.now {
                return t.then(settlingLists(after: t)).then(beginKnown(next, held: held, ids: &ids, now: now))
            }
            if let held {
                t.core.append(.finish(held))
                t.effects.append(.answer(held, .none))
            }
            return t.then(settlingLists(after: t))
        }
        let op = held ?? ids.take()
        let unread = before?.loaded != true
        t.core.append(.track(op, .logout(account.key, caller: caller, reading: unread ? account : nil, then: next)))
        t.effects.append(.start(op, unread ? .keyringRead(account.key) : .keyringDelete(account.key)))
        if held == nil { t.reply = .held(op) }
        return t.then(settlingLists(after: t))
    }

    /// `RejectToken(account, token)`: a server refused this token (git's
    /// `erase` after a 401). If it is the account's current access or ID
    /// token, it is not handed out again: the next `GetToken` refreshes. The
    /// refresh token is kept; any other token is ignored.
    func rejecting(_ account: Account, _ token: String, states: inout [AccountKey: AccountTokens]) -> Transition {
        guard var state = states[account.key], var t = state.tokens else { return Transition() }
        var dropped = false
        if ConstantTime.equals(t.accessToken, token) {
            t.expiresAt = 0
            dropped = true
        }
        if let id = t.idToken, ConstantTime.equals(id, token) {
            t.idTokenExpiresAt = 0
            dropped = true
        }
        guard dropped else { return Transition() }
        state.tokens = t
        states[account.key] = state
        return Transition(
            core: [.account(account.key, state)],
            effects: [
                .log(
                    LogLine(.info, "A token of \(account.name)'s was refused by a server; the next GetToken refreshes"))
            ])
    }

    /// The tokens a login with `account` brought: kept in memory, and written
    /// to the keyring (a flight, which `GetToken` callers wait on).
    func keepTokens(_ tokens: TokenSet, for key: AccountKey, inMemoryOnly: Bool, ids: inout OperationIDs, now: Int64)
        -> Transition
    {
        var state = accountTokens[key] ?? AccountTokens()
        state.loaded = true
        state.refreshWorked()
        var t = Transition()
        // A new sign-in supersedes whatever a flight under way would land on
        // (an older set, a read, a refresh of the old refresh token): that
        // flight is dropped, and its waiters wait on this one instead.
        if let old = state.flight {
            t.core.append(.finish(old))
            state.flight = nil
        }
        if inMemoryOnly {
            state.tokens = tokens
            state.unsaved = nil
            t = t.then(answerWaiters(of: key, state: state, now: now, refusal: nil, anyLive: true))
        } else {
            let op = ids.take()
            state.flight = op
            t.core.append(.track(op, .tokenFlight(TokenFlight(key: key, account: nil, stage: .writing(tokens)))))
            t.effects.append(.start(op, .keyringWrite(key, tokens)))
        }
        t.core.append(.account(key, state))
        return t
    }

    /// A flight's next step, from what its operation answered.
    func tokenFlight(_ op: OperationID, _ f: TokenFlight, _ result: OperationResult, now: Int64) -> Transition {
        var state = accountTokens[f.key] ?? AccountTokens()
        // What the keyring said shows where the tokens live (`ListAccounts`: locked or not).
        switch result {
        case .keyring(.success): state.keyringLocked = false
        case .keyring(.failure(let e)) where e.code == .keyringLocked: state.keyringLocked = true
        default: break
        }
        var f = f
        switch (f.stage, result) {
        case (.reading, .keyring(.success(.tokens(let kept)))):
            state.loaded = true
            state.tokens = kept
            if let account = f.account, let kept, let why = Self.unboundUnderRequire(account, kept) {
                var ids = newOperationIDs
                return signedOut(op, f, state, because: why, now: now).then(revoking(account, kept, ids: &ids))
            }
            return land(op, f, state, refreshed: false, now: now)

        case (.discovering, .metadata(.success(let metadata))):
            guard let account = f.account, let used = state.tokens?.refreshToken else {
                return land(op, f, state, refreshed: true, now: now)
            }
            f.metadata = metadata
            f.stage = .refreshing(used: used)
            return refresh(op, f, account, used, key: state.tokens?.dpopKey)

        case (.refreshing, .tokens(.success(let fresh)))
        where f.account?.dpop == .require && DPoPBinding.unbound(fresh) != nil:
            // The provider may have rotated the refresh token into this unbound set: nothing of it is kept (it is
            // revoked), and a new sign-in binds again.
            var ids = newOperationIDs
            let revoked = f.account.map { revoking($0, fresh, ids: &ids) } ?? Transition()
            return signedOut(op, f, state, because: DPoPBinding.unbound(fresh) ?? "", now: now).then(revoked)

        case (.refreshing(let used), .tokens(.success(var fresh))):
            state.refreshWorked()
            // A provider that does not rotate sends no new refresh token; one
            // that sends no new ID token leaves the last one (OIDC Core §12.2).
            if fresh.refreshToken == nil { fresh.refreshToken = used }
            if fresh.idToken == nil, let old = state.tokens {
                fresh.idToken = old.idToken
                fresh.idTokenExpiresAt = old.idTokenExpiresAt
                fresh.claims = old.claims
                fresh.subject = old.subject
                fresh.name = old.name
                fresh.email = old.email
            }
            guard f.account?.store != .memory else {
                state.tokens = fresh
                return land(op, f, state, refreshed: true, now: now)
            }
            f.stage = .writing(fresh)
            return Transition(core: [.track(op, .tokenFlight(f))], effects: [.start(op, .keyringWrite(f.key, fresh))])

        case (.refreshing(let used), .tokens(.failure(let failure))):
            let refusal = RouterError(
                .notSignedIn,
                "the provider refused the refresh token (\(failure.providerError ?? failure.code.rawValue))")
            guard failure.providerError == "invalid_grant" || failure.providerError == "unauthorized_client" else {
                return refreshFailed(op, f, state, failure.message, now: now)
            }
            guard f.account?.store != .memory else {
                return signedOut(op, f, state, because: refusal.message, now: now)
            }
            f.stage = .rereading(used: used, refusal: refusal)
            return Transition(core: [.track(op, .tokenFlight(f))], effects: [.start(op, .keyringRead(f.key))])

        case (.rereading(let used, let refusal), .keyring(.success(.tokens(let kept)))):
            // Another process refreshed meanwhile: its refresh token is the live one.
            if let kept, let live = kept.refreshToken, live != used, let account = f.account {
                state.tokens = kept
                if waitersAllServed(f.key, state, now: now) { return land(op, f, state, refreshed: true, now: now) }
                f.stage = .refreshing(used: live)
                var t = refresh(op, f, account, live, key: kept.dpopKey)
                t.core.append(.account(f.key, state))
                return t
            }
            return signedOut(op, f, state, because: refusal.message, now: now)

        case (.writing(let fresh), .keyring(let r)):
            state.tokens = fresh
            state.loaded = true
            state.refreshWorked()
            if case .failure(let e) = r {
                state.unsaved = e.message
                let name = f.key.name
                var t = land(op, f, state, refreshed: true, now: now)
                t.effects.append(
                    .log(
                        LogLine(
                            .warning,
                            "\(name)'s new tokens could not be written to the keyring (\(e.message)); they are kept in memory until a write works"
                        )))
                return t
            }
            state.unsaved = nil
            return land(op, f, state, refreshed: true, now: now)

        case (_, .metadata(.failure(let e))):
            return refreshFailed(op, f, state, e.message, now: now)

        case (_, .keyring(.failure(let e))):
            // The keyring could not be asked: nothing is forgotten.
            state.flight = nil
            return answerWaiters(of: f.key, state: state, now: now, refusal: e).finishing(op, f.key, state)

        default:
            state.flight = nil
            let what = "\(op) (\(f.key.name), \(f.stage))"
            var t = answerWaiters(
                of: f.key, state: state, now: now,
                refusal: RouterError(.internalError, "\(what) ended with an unexpected result; try again"))
            t.core += [.finish(op), .account(f.key, state)]
            t.effects.append(.log(LogLine(.error, "\(what) ended with an unexpected result; ignored")))
            return t
        }
    }

    /// The provider could not be reached or failed (never a refusal of the
    /// token): nothing is forgotten, the next refresh waits (`backoff`), and
    /// each waiter whose token is still live gets it with why it was not refreshed.
    private func refreshFailed(_ op: OperationID, _ f: TokenFlight, _ state: AccountTokens, _ why: String, now: Int64)
        -> Transition
    {
        var state = state
        state.flight = nil
        state.refreshFailed(why, now: now)
        let wait = AccountTokens.backoff(after: state.failures)
        let message =
            "could not refresh \(f.key.name)'s tokens (\(why)); they are kept, and tried again after \(wait) s"
        var t = answerWaiters(
            of: f.key, state: state, now: now, refusal: RouterError(.refreshFailed, message), anyLive: true,
            warning: message)
        t.effects.append(.log(LogLine(.warning, message)))
        return t.finishing(op, f.key, state)
    }

    /// A refresh proves the key the tokens were bound to at sign-in (their refresh token is bound to it, RFC 9449 §5).
    private func refresh(_ op: OperationID, _ f: TokenFlight, _ account: Account, _ refreshToken: String, key: DPoPKey?)
        -> Transition
    {
        guard let m = f.metadata else {
            return Transition(
                core: [.track(op, .tokenFlight(f))], effects: [.start(op, .discover(issuer: account.issuer))])
        }
        let grant = TokenGrant(
            tokenEndpoint: m.tokenEndpoint, jwksURI: m.jwksURI,
            expected: IDTokenClaims.Expected(issuer: m.issuer, clientID: account.clientID, nonce: nil),
            requiresIDToken: false, dpop: key.map { DPoPBinding(key: $0, required: account.dpop == .require) })
        return Transition(
            core: [.track(op, .tokenFlight(f))],
            effects: [.start(op, .refresh(grant, refreshToken: refreshToken, scope: nil))])
    }

    /// The flight ended with `state`: the waiters it can serve are answered.
    /// Those that need more life than a kept token has get a refresh (the
    /// flight goes on), unless this flight just refreshed.
    private func land(_ op: OperationID, _ f: TokenFlight, _ state: AccountTokens, refreshed: Bool, now: Int64)
        -> Transition
    {
        var state = state
        if !refreshed, let account = f.account, state.tokens?.refreshToken != nil,
            !waitersAllServed(f.key, state, now: now)
        {
            var t = answerWaiters(of: f.key, state: state, now: now, refusal: nil)
            var next = f
            next.stage = .discovering
            t.core.append(.track(op, .tokenFlight(next)))
            t.effects.append(.start(op, .discover(issuer: account.issuer)))
            state.flight = op
            t.core.append(.account(f.key, state))
            return t
        }
        state.flight = nil
        let refusal =
            state.tokens == nil
            ? Self.notSignedIn(f.key, nil)
            : RouterError(.refreshFailed, "\(f.key.name)'s token has expired, and refreshing it gave no live one")
        // Just refreshed: the provider's tokens may live less than min_valid; the freshest live one is the best there
        // is.
        return answerWaiters(of: f.key, state: state, now: now, refusal: refusal, anyLive: refreshed).finishing(
            op, f.key, state)
    }

    /// The account's token revoked at its provider: the metadata (cached, as a rule), then the request.
    func revoking(_ account: Account, _ tokens: TokenSet, ids: inout OperationIDs) -> Transition {
        guard let r = Revocation(account, tokens) else { return Transition() }
        let op = ids.take()
        return Transition(core: [.track(op, .revocation(r))], effects: [.start(op, .discover(issuer: account.issuer))])
    }

    /// A revocation's next step.
    func revocationStep(_ op: OperationID, _ r: Revocation, _ result: OperationResult) -> Transition {
        let name = r.account.name
        switch result {
        case .metadata(.success(let m)):
            guard let endpoint = r.endpoint ?? m.revocationEndpoint else {
                return Transition(
                    core: [.finish(op)],
                    effects: [
                        .log(
                            LogLine(
                                .info,
                                "\(name)'s provider offers no revocation endpoint; its tokens are forgotten here, and live at the provider until they expire"
                            ))
                    ])
            }
            return Transition(core: [.track(op, .revocation(r))], effects: [.start(op, .revoke(r, endpoint: endpoint))])
        case .metadata(.failure(let e)):
            return Transition(
                core: [.finish(op)],
                effects: [.log(LogLine(.warning, "\(name)'s tokens were not revoked at the provider: \(e.message)"))])
        case .revoked(nil):
            return Transition(
                core: [.finish(op)], effects: [.log(LogLine(.info, "\(name)'s \(r.hint) revoked at the provider"))])
        case .revoked(let e?):
            return Transition(
                core: [.finish(op)],
                effects: [.log(LogLine(.warning, "\(name)'s \(r.hint) was not revoked at the provider: \(e.message)"))])
        default:
            return Transition(
                core: [.finish(op)],
                effects: [.log(LogLine(.error, "\(op) (\(r)) ended with an unexpected result; ignored"))])
        }
    }

    /// An account's tokens forgotten without a caller to answer: in memory at once, in the keyring by a flight of its
    /// own.
    func forgetting(_ account: Account, why: String, states: inout [AccountKey: AccountTokens], ids: inout OperationIDs)
        -> Transition
    {
        let t = clearing(account.key, why: why, states: &states)
        return account.store == .keyring ? t.then(deletingFromKeyring(account.key, ids: &ids)) : t
    }

    /// The account's tokens gone from memory: a flight under way lands on nothing, its waiters hear `NotSignedIn`
    /// (`why`).
    private func clearing(_ key: AccountKey, why: String, states: inout [AccountKey: AccountTokens]) -> Transition {
        let state = AccountTokens(tokens: nil, loaded: true, flight: nil)
        var t = answerWaiters(of: key, state: state, now: 0, refusal: Self.notSignedIn(key, why))
        if let flight = states[key]?.flight { t.core.append(.finish(flight)) }
        states[key] = state
        t.core.append(.account(key, state))
        return t
    }

    /// The keyring's item deleted by a flight nobody waits on (`.forgetting`).
    private func deletingFromKeyring(_ key: AccountKey, ids: inout OperationIDs) -> Transition {
        let forget = ids.take()
        return Transition(
            core: [.track(forget, .tokenFlight(TokenFlight(key: key, account: nil, stage: .forgetting)))],
            effects: [.start(forget, .keyringDelete(key))])
    }

    private func signedOut(
        _ op: OperationID, _ f: TokenFlight, _ state: AccountTokens, because reason: String, now: Int64
    ) -> Transition {
        var state = state
        state.tokens = nil
        state.unsaved = nil
        state.flight = nil
        var t = answerWaiters(of: f.key, state: state, now: now, refusal: Self.notSignedIn(f.key, reason)).finishing(
            op, f.key, state)
        t.effects.append(.log(LogLine(.notice, "\(f.key.name) is signed out: \(reason)")))
        if f.account?.store != .memory {
            // Forgotten in the keyring too, so the spent token is not tried again.
            var ids = newOperationIDs
            t = t.then(deletingFromKeyring(f.key, ids: &ids))
        }
        return t
    }

    private func waitersAllServed(_ key: AccountKey, _ state: AccountTokens, now: Int64) -> Bool {
        waiters(of: key).allSatisfy { state.usable($0.kind, minValid: $0.minValid, now: now) }
    }

    private func waiters(of key: AccountKey) -> [(
        op: OperationID, kind: Account.TokenKind, minValid: Int64, proof: ProofRequest?
    )] {
        operations.compactMap { op, pending in
            if case .tokenWait(let k, _, let kind, let minValid, let proof) = pending, k == key {
                return (op, kind, minValid, proof)
            }
            return nil
        }.sorted { $0.op < $1.op }
    }

    /// Each waiter gets a token it can use (with `anyLive`, one not yet
    /// expired will do); the others `refusal`, or stay (nil).
    private func answerWaiters(
        of key: AccountKey, state: AccountTokens, now: Int64, refusal: RouterError?, anyLive: Bool = false,
        warning: String? = nil
    ) -> Transition {
        var t = Transition()
        for w in waiters(of: key) {
            if state.usable(w.kind, minValid: anyLive ? 1 : w.minValid, now: now), let tokens = state.tokens {
                t.effects.append(
                    .answer(
                        w.op,
                        Self.tokenReply(
                            key, tokens, kind: w.kind, proof: w.proof,
                            warning: warning ?? state.unsaved.map(Self.unsavedWarning))))
                t.core.append(.finish(w.op))
            } else if let refusal {
                t.effects.append(.answer(w.op, .refused(refusal)))
                t.core.append(.finish(w.op))
            }
        }
        return t
    }

    /// The set the account's flight is writing to the keyring, if it is writing one.
    func writing(_ key: AccountKey) -> TokenSet? {
        for case .tokenFlight(let f) in operations.values where f.key == key {
            if case .writing(let tokens) = f.stage { return tokens }
        }
        return nil
    }

    /// Why `tokens` may not be used by `account`, whose `dpop=require` they do not meet (no key), or nil.
    static func unboundUnderRequire(_ account: Account, _ tokens: TokenSet) -> String? {
        guard account.dpop == .require, tokens.dpopKey == nil else { return nil }
        return "its tokens are not bound to a DPoP key and the account requires DPoP (dpop=require)"
    }

    /// A `GetToken`'s answer, or a `SignProof`'s: the proof of the tokens' key for the
    /// access token (the one asked about, if it is still the account's).
    static func tokenReply(
        _ key: AccountKey, _ tokens: TokenSet, kind: Account.TokenKind, proof: ProofRequest?, warning: String?
    ) -> Transition.Reply {
        guard let proof else { return .token(TokenAnswer(tokens: tokens, kind: kind, warning: warning)) }
        guard let dpop = tokens.dpopKey else {
            return .refused(
                RouterError(
                    .noDPoPKey,
                    "\(key.name)'s tokens are not bound to a DPoP key (its dpop is off, or its provider offered no DPoP when it signed in): send the access token as a bearer token, or sign in again with dpop=require"
                ))
        }
        if let asked = proof.accessToken, !ConstantTime.equals(asked, tokens.accessToken) {
            return .refused(
                RouterError(
                    .staleToken,
                    "that access token is no longer \(key.name)'s (it was refreshed or refused since); ask GetToken again, then SignProof"
                ))
        }
        return .proof(
            ProofPlan(
                key: dpop, method: proof.method, url: proof.url, nonce: proof.nonce, accessToken: tokens.accessToken))
    }

    static func notSignedIn(_ key: AccountKey, _ why: String?) -> RouterError {
        RouterError(
            .notSignedIn,
            "\(key.name) is not signed in\(why.map { " (\($0))" } ?? ""); sign in with: linkctl login \(key.name)")
    }

    public static func unknownAccount(_ name: String) -> RouterError {
        RouterError(
            .unknownAccount,
            "there is no account \(name) for this caller; linkctl accounts lists them, linkctl account add declares one"
        )
    }

    static func unsavedWarning(_ why: String) -> String {
        "the tokens are not in the keyring (\(why)); they last until linkrouterd stops"
    }
}

extension Transition {
    /// The flight's operation done, and the account's state taken in.
    fileprivate func finishing(_ op: OperationID, _ key: AccountKey, _ state: AccountTokens) -> Transition {
        var t = self
        t.core.append(.finish(op))
        t.core.append(.account(key, state))
        return t
    }
}
