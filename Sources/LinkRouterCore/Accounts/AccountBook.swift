/// The rules for accounts' tokens: `GetToken` and `SignProof` answered from
/// memory or by the account's one flight (`TokenFlight`), `ListAccounts`,
/// `Logout`, `RejectToken`, and what a login brings. What the daemon knows of
/// each account is `Router.keepers` (memory: a cache of the keyring);
/// each rule reads and updates it through the event's `Turn`.
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
enum AccountBook {
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
        do throws(RouterError) {
            target = try TokenTarget.make(
                scope: request.scope, resources: request.resources, audience: request.audience,
                granted: state.tokens?.scope ?? account.scope, account: account.name)
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
        // A token with the life asked for is handed out from memory, even while the account's flight refreshes ahead
        // of need (the new set is not anyone's until the keyring has it).
        if state.usable(kind, minValid: minValid, now: now, target: target), let tokens = state.set(for: target) {
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
                            interactive: request.interactive == true, target: target, account: account)))
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

    /// A narrower token refused because the provider answered with a wider scope than asked (it does not narrow a
    /// refresh), and what to do instead; said with the scope as the caller asked it.
    static func widerRefusal(_ name: String, asked: String, answered: String) -> RouterError {
        RouterError(
            .tokenExchangeFailed,
            "\(name)'s provider answered a refresh for scope \"\(asked)\" with the wider \"\(answered)\": it does not narrow tokens, so none is handed out, and it is not asked again until the next sign-in; use the account's own token (linkctl token \(name)), or declare an account with the smaller scope (linkctl account add NAME --scope \"\(asked)\" …)"
        )
    }

    /// Why a token short of `min_valid` was not refreshed: the keyring is locked.
    static let lockedWhy =
        "the keyring is locked, so the token was not refreshed (a refresh now could not be kept); unlock the keyring"

    /// Why nothing is refreshed while the daemon stops.
    static let stoppingWhy = "linkrouterd is stopping, and refreshes nothing meanwhile; ask again in a moment"

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

    /// The tokens a login with `account` brought: kept in memory, and written
    /// to the keyring (a flight, which `GetToken` callers wait on).
    static func keepTokens(_ tokens: TokenSet, for key: AccountKey, inMemoryOnly: Bool, _ turn: inout Turn)
        -> Transition
    {
        // Signed in: a notice asking for it is withdrawn.
        let withdrawn = AccountNotice.withdrawing(key, .signIn, &turn)
        var state = turn.keepers[key] ?? AccountKeeper()
        state.loaded = true
        state.refreshWorked()
        // Narrower tokens were the old sign-in's.
        state.narrow = [:]
        state.widerAnswers = [:]
        var t = Transition()
        // A new sign-in supersedes whatever a flight under way would land on
        // (an older set, a read, a refresh of the old refresh token): that
        // flight is dropped, and its waiters wait on this one instead.
        if let old = state.flight {
            t.core.append(.finish(old.op))
            state.flight = nil
        }
        t = withdrawn.then(t).telling(AccountNews.of(key, .signedIn, expiresAt: tokens.expiresAt, in: turn.core))
        guard !inMemoryOnly else {
            state.tokens = tokens
            state.unsaved = nil
            t = t.then(answerWaiters(of: key, state: state, refusal: nil, anyLive: true, &turn))
            t.core.append(turn.set(key, state))
            return t.then(BackgroundRefresh.following(key, account: nil, &turn))
        }
        return t.then(TokenFlight.writing(tokens, key, account: nil, state: state, &turn))
    }

    /// The provider could not be reached or failed (never a refusal of the
    /// token): nothing is forgotten, the next refresh waits (`backoff`), and
    /// each waiter whose token is still live gets it with why it was not
    /// refreshed. A failure of the daemon's own (`provider` false: no room for
    /// another request) is answered the same way but pushes no refresh back.
    static func refreshFailed(
        _ key: AccountKey, _ op: OperationID, _ state: AccountKeeper, _ why: String, provider: Bool = true,
        unanswered: Bool = false, _ turn: inout Turn
    ) -> Transition {
        var state = state
        state.flight = nil
        let message: String
        if provider {
            state.refreshFailed(why, now: turn.now)
            let wait = AccountKeeper.backoff(after: state.failures)
            // Sent and not answered: a rotating provider may have spent the refresh token and issued one that never
            // arrived. Nothing here can know; the next refresh (after the backoff, and after the keyring is read
            // again, which every refresh does first unless the keyring has just answered) will tell.
            message =
                unanswered
                ? "could not refresh \(key.name)'s tokens (\(why)); the provider may have acted on the request and signed \(key.name) out: if the next refresh is refused, sign in again with linkctl login \(key.name); the tokens are kept, and tried again after \(wait) s"
                : "could not refresh \(key.name)'s tokens (\(why)); they are kept, and tried again after \(wait) s"
        } else {
            message =
                "could not refresh \(key.name)'s tokens now (\(why)); they are kept, and tried again at the next call"
        }
        var t = answerWaiters(
            of: key, state: state, refusal: RouterError(.refreshFailed, message), anyLive: true, warning: message, &turn
        )
        t.effects.append(.log(LogLine(.warning, message)))
        // Refreshing ahead goes on after the backoff (or at the next call, for the daemon's own refusal).
        return t.finishing(op, turn.set(key, state)).then(BackgroundRefresh.following(key, account: nil, &turn))
    }

    /// The keyring could not be shown able to take what a refresh would bring (`TokenFlight`'s check: locked,
    /// absent, or not answering): no refresh token is spent, for a provider that rotates would leave its successor
    /// nowhere to go. A waiter whose token is still live gets it with why; the others hear the keyring's own error
    /// (`KeyringLocked`, `NoKeyring`, `KeyringFailed`) and what to do. The flight ends; the next call, a
    /// `CollectionChanged` or the timer ahead of need tries again.
    static func keyringHeldBack(
        _ key: AccountKey, _ op: OperationID, _ state: AccountKeeper, _ e: RouterError, account: Account?,
        _ turn: inout Turn
    ) -> Transition {
        var state = state
        state.flight = nil
        let why =
            e.code == .keyringLocked
            ? lockedWhy
            : "the keyring cannot take new tokens now (\(e.message)), so the token was not refreshed (a refresh now could not be kept)"
        let refusal = RouterError(
            e.code,
            e.code == .keyringLocked
                ? "\(key.name)'s token has run out and the keyring is locked: a refresh now could not be kept, so none was made and no refresh token was spent; unlock the keyring and ask again"
                : "\(key.name)'s token has run out and the keyring cannot take new tokens now (\(e.message)): a refresh now could not be kept, so none was made and no refresh token was spent"
        )
        var t = answerWaiters(of: key, state: state, refusal: refusal, anyLive: true, warning: why, &turn)
        t.effects.append(.log(LogLine(.notice, "Not refreshing \(key.name)'s tokens: \(why)")))
        return t.finishing(op, turn.set(key, state)).then(BackgroundRefresh.following(key, account: account, &turn))
    }

    /// An account's tokens forgotten without a caller to answer: in memory at once, in the keyring by a flight of its
    /// own.
    static func forgetting(_ account: Account, why: String, _ turn: inout Turn) -> Transition {
        let t = clearing(account.key, why: why, &turn)
        return account.store == .keyring ? t.then(deletingFromKeyring(account.key, &turn)) : t
    }

    /// The account's tokens gone from memory: a flight under way lands on nothing, its waiters hear `NotSignedIn`
    /// (`why`).
    private static func clearing(_ key: AccountKey, why: String, _ turn: inout Turn) -> Transition {
        var t = BackgroundRefresh.dropping(key, &turn)
        // A copy an earlier stop set aside is a sign-in too: it ends with this one.
        if turn.keepers[key]?.setAside == true { t.effects.append(.dropSetAside(key)) }
        let state = AccountKeeper(tokens: nil, loaded: true)
        t = t.then(answerWaiters(of: key, state: state, refusal: notSignedIn(key, why), &turn))
        if let flight = turn.keepers[key]?.flight { t.core.append(.finish(flight.op)) }
        t.core.append(turn.set(key, state))
        return t.telling(AccountNews.of(key, .signedOut, why: why, in: turn.core))
    }

    /// The keyring's item deleted by a flight nobody waits on (`.forgetting`).
    private static func deletingFromKeyring(_ key: AccountKey, _ turn: inout Turn) -> Transition {
        let forget = turn.ids.take()
        return Transition(
            core: [.track(forget, .account(key, .forgetting))],
            effects: [.start(forget, .forgetting(key))])
    }

    /// The flight's account is signed out (`reason`): memory forgets it, its waiters hear so, the keyring forgets it
    /// too.
    static func signedOut(
        _ f: TokenFlight, _ op: OperationID, _ state: AccountKeeper, because reason: String, _ turn: inout Turn
    )
        -> Transition
    {
        var t = BackgroundRefresh.dropping(f.key, &turn)
        var state = state
        state.refreshTimer = nil
        state.tokens = nil
        state.narrow = [:]
        state.widerAnswers = [:]
        state.unsaved = nil
        state.flight = nil
        t = t.then(answerWaiters(of: f.key, state: state, refusal: notSignedIn(f.key, reason), &turn))
            .finishing(op, turn.set(f.key, state))
        t.effects.append(.log(LogLine(.notice, "\(f.key.name) is signed out: \(reason)")))
        t = t.telling(AccountNews.of(f.key, .signedOut, why: reason, in: turn.core))
        // Nobody may be asking yet (a refresh ahead of need): the person is told now, with the action that signs in.
        if f.account != nil { t = t.then(AccountNotice.asking(f.key, .signIn, why: reason, &turn)) }
        // Forgotten in the keyring too, so the spent token is not tried again.
        if f.account?.store != .memory { t = t.then(deletingFromKeyring(f.key, &turn)) }
        return t
    }

    static func waitersAllServed(_ key: AccountKey, _ state: AccountKeeper, _ turn: inout Turn) -> Bool {
        turn.core.held.tokenWaits(of: key).allSatisfy {
            state.usable($0.wait.kind, minValid: $0.wait.minValid, now: turn.now, target: $0.wait.target)
        }
    }

    /// Each waiter gets a token it can use (with `anyLive`, or for a target of `liveFor`, the ones just refreshed, one
    /// not yet expired will do); a waiter whose target is in `refusals` that refusal; the others `refusal`, or stay
    /// (nil).
    static func answerWaiters(
        of key: AccountKey, state: AccountKeeper, refusal: RouterError?, anyLive: Bool = false,
        liveFor: [TokenTarget] = [], refusals: [TokenTarget: RouterError] = [:], warning: String? = nil,
        _ turn: inout Turn
    ) -> Transition {
        var t = Transition()
        for (op, w) in turn.core.held.tokenWaits(of: key) {
            let live = anyLive || liveFor.contains(w.target)
            if state.usable(w.kind, minValid: live ? 1 : w.minValid, now: turn.now, target: w.target),
                let tokens = state.set(for: w.target)
            {
                let reply = tokenReply(
                    key, tokens, kind: w.kind, proof: w.proof, warning: warning ?? state.unsaved.map(unsavedWarning),
                    target: w.target)
                t.effects.append(.answer(op, reply))
                t.core.append(.finish(op))
            } else if let refusal = refusals[w.target] ?? refusal {
                t.effects.append(.answer(op, .refused(refusal)))
                t.core.append(.finish(op))
            }
        }
        return t
    }

    /// Why `tokens` may not be used by `account`, whose `dpop=require` they do not meet (no key), or nil.
    static func unboundUnderRequire(_ account: Account, _ tokens: TokenSet) -> String? {
        guard account.dpop == .require, tokens.dpopKey == nil else { return nil }
        return "its tokens are not bound to a DPoP key and the account requires DPoP (dpop=require)"
    }

    /// A `GetToken`'s answer, or a `SignProof`'s: the proof of the tokens' key for the
    /// access token (the one asked about, if it is still the account's).
    static func tokenReply(
        _ key: AccountKey, _ tokens: TokenSet, kind: Account.TokenKind, proof: ProofRequest?, warning: String?,
        target: TokenTarget = TokenTarget()
    ) -> Transition.Reply {
        guard let proof else {
            return .token(TokenAnswer(tokens: tokens, kind: kind, warning: warning, target: target))
        }
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
        let plan = ProofPlan(
            key: dpop, method: proof.method, url: proof.url, nonce: proof.nonce, accessToken: tokens.accessToken)
        guard proof.withToken else { return .proof(plan) }
        // The token and the proof for it, from the same set in one answer: they cannot come apart.
        var answer = TokenAnswer(tokens: tokens, kind: .access, warning: warning, target: target)
        answer.proof = plan
        return .token(answer)
    }

    static func notSignedIn(_ key: AccountKey, _ why: String?) -> RouterError {
        RouterError(
            .notSignedIn,
            "\(key.name) is not signed in\(why.map { " (\($0))" } ?? ""); sign in with: linkctl login \(key.name)")
    }

    static func unknownAccount(_ name: String) -> RouterError {
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
