/// What comes to an account, taken in by its keeper: a sign-in's tokens, a refresh that failed, a keyring that
/// cannot take a refresh's answer, and the endings of a sign-in (a refusal, a sign-out, a set that may not be used).
extension AccountKeeper {
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
    static func clearing(_ key: AccountKey, why: String, _ turn: inout Turn) -> Transition {
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
    static func deletingFromKeyring(_ key: AccountKey, _ turn: inout Turn) -> Transition {
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
}
