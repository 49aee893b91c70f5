/// One account's keyring read, refresh or write: the one flight every caller
/// for the account waits on, so a rotating refresh token is spent once, never
/// by two callers at the same time. The rules (`AccountBook`): the new refresh
/// token is written before anyone gets the new access token; a write that
/// fails keeps the set in memory and says so; a refusal of the refresh token
/// (`RefreshRefusal`) ends a sign-in, and only after the keyring was read
/// again (another process may have refreshed).
///
/// Each of its operations answers with its own event, carrying what the
/// flight needs to go on (the refresh token a refresh spent, the set a write
/// wrote), so no event can arrive at a stage that does not expect it.
public struct TokenFlight: OperationMachine {
    /// Where the flight is, for the log and for a sign-out (which names and revokes a set being written).
    public enum Stage: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
        case reading, discovering, checking, refreshing, rereading, forgetting
        case writing(TokenSet)

        /// Never the tokens a stage carries: stages reach log lines.
        public var description: String {
            switch self {
            case .reading: "reading"
            case .discovering: "discovering"
            case .checking: "checking"
            case .refreshing: "refreshing"
            case .writing: "writing"
            case .rereading: "rereading"
            case .forgetting: "forgetting"
            }
        }
        public var debugDescription: String { description }
    }

    public let key: AccountKey
    /// The account's declaration (nil for a sign-in's write, a forgetting, or a read or write the keyring's
    /// `CollectionChanged` began: until a caller that waits on it brings its own, `adoptingDeclaration`).
    public var account: Account?
    public var stage: Stage
    /// The issuer's metadata, once discovered (a refresh after a re-read needs it again).
    public var metadata: ProviderMetadata?
    /// What the refresh under way (or next) is for: the account's own token, or a narrower one (`TokenTarget`).
    public var target = TokenTarget()
    /// The targets this flight has refreshed: their waiters take any live token, and none is refreshed twice.
    var refreshedTargets: [TokenTarget] = []
    /// A narrower token whose answer rotated the account's refresh token: handed out once the new one is written.
    var pendingNarrow: TokenSet?
    /// Targets whose refresh answered what cannot be handed out (a wider scope than asked), and what their waiters
    /// hear.
    var refusals: [TokenTarget: RouterError] = [:]
    /// Whether the keyring has just answered for the account (a read, a check, a write that worked): a refresh of
    /// a keyring account is sent only then, and each refresh uses it up (`refresh`). A state remembered from earlier
    /// signals is not enough: a keyring replaced or locked since would leave the provider's new set nowhere to go,
    /// with the old refresh token spent (issue 47, case 1).
    var keyringAnswered = false
    /// Whether the set being written is a refresh's answer (the refresh this flight sent): only then does its landing
    /// count as a refresh of the target. A write alone (`RejectToken`'s, a set kept in memory written once the
    /// keyring unlocks) refreshed nothing, and a caller waiting on it whose token is short gets a refresh.
    var refreshSent = false

    public enum Work: Sendable, Equatable {
        case read(AccountKey)
        case discover(issuer: String)
        /// Right before a refresh: the account's item read, which says, fresh, whether the keyring can take the new
        /// set (a locked, absent or silent keyring fails it) and whether another process refreshed meanwhile.
        case check(AccountKey)
        /// The refresh token posted (asking for `target`'s scope, resources, audience), and the answer verified.
        case refresh(TokenGrant, refreshToken: String, target: TokenTarget)
        /// Started with each refresh: how long its callers wait before one whose token is still live gets that token
        /// (`slow`). A refresh may take up to 60 s (`TokenClient.refreshTimeoutMilliseconds`): it is never given up,
        /// but a caller need not wait for all of it.
        case patience(milliseconds: Int64)
        /// The keyring read again after the provider refused `used` (another process may have refreshed).
        case reread(AccountKey, used: String, refusal: RouterError)
        /// A new set to the keyring (skipped by the keyring when unchanged).
        case write(AccountKey, TokenSet)
        case delete(AccountKey)
    }

    public enum Event: Sendable {
        case read(KeyringRead)
        case metadata(Result<ProviderMetadata, RouterError>)
        case checked(KeyringRead)
        case refreshed(Result<TokenSet, SessionFailure>, used: String)
        /// The refresh under way has taken the `patience` time.
        case slow
        case reread(KeyringRead, used: String, refusal: RouterError)
        /// The set written (nil), or why not.
        case written(RouterError?, TokenSet)
        case deleted(RouterError?)
    }

    var running: Running { .flight(self) }

    init?(_ running: Running) {
        guard case .flight(let m) = running else { return nil }
        self = m
    }

    init(key: AccountKey, account: Account?, stage: Stage, metadata: ProviderMetadata? = nil) {
        self.key = key
        self.account = account
        self.stage = stage
        self.metadata = metadata
    }

    /// A flight started: tracked, its first operation begun, the account's state saying it flies.
    static func start(
        _ flight: TokenFlight, _ work: Work, state: AccountTokens, _ turn: inout Turn
    ) -> Transition {
        let op = turn.ids.take()
        var state = state
        state.flight = op
        return Transition(
            core: [.track(op, .flight(flight)), turn.set(flight.key, state)], effects: [.start(op, .flight(work))])
    }

    mutating func handle(_ event: Event, op: OperationID, _ turn: inout Turn) -> Transition {
        adoptingDeclaration(turn)
        var state = turn.accounts[key] ?? AccountTokens()
        let t = noting(event, op: op, &state, &turn)
        return t.then(AccountBook.settlingLists(&turn))
    }

    /// A flight begun without the account's declaration (a read the keyring's `CollectionChanged` started, a
    /// write of a set it could not take) takes the one its first waiter brought: a caller that asked for a fresh
    /// token while it flew gets a refresh, not a refusal the provider never saw (issue 47, case 4).
    private mutating func adoptingDeclaration(_ turn: Turn) {
        guard account == nil, stage != .forgetting else { return }
        account = turn.core.held.tokenWaits(of: key).lazy.compactMap(\.wait.account).first { $0.key == key }
    }

    /// What the keyring said shows where the tokens live; then the event's step.
    private mutating func noting(_ event: Event, op: OperationID, _ state: inout AccountTokens, _ turn: inout Turn)
        -> Transition
    {
        // What the keyring said shows where the tokens live (`ListAccounts`: locked or not).
        let wasLocked = state.keyringLocked
        switch event {
        case .read(let r), .reread(let r, _, _), .checked(let r): state.noteKeyring(r.map { _ in () })
        case .written(let e, _): state.noteKeyring(e.map { .failure($0) } ?? .success(()))
        case .metadata, .refreshed, .deleted, .slow: break
        }
        // A keyring that locked or unlocked since it last answered: the account's clients hear so.
        let lockNews: AccountNews? =
            if let was = wasLocked, let now = state.keyringLocked, was != now {
                AccountNews.of(key, now ? .keyringLocked : .keyringUnlocked, in: turn.core)
            } else { nil }
        let t = step(event, op: op, &state, &turn).telling(lockNews)
        return t.then(keyringNotice(event, &turn))
    }

    /// The person is asked to unlock the keyring when it is locked while new tokens wait in memory (lost if the
    /// daemon stops first) or a caller's tokens cannot be read; once the keyring answers, the notice goes.
    private func keyringNotice(_ event: Event, _ turn: inout Turn) -> Transition {
        // Whether a caller who is not its own face waited (the held calls as the turn began).
        func asked() -> Bool { turn.core.held.tokenWaits(of: key).contains { !$0.wait.interactive } }
        switch event {
        case .written(let e?, _) where e.code == .keyringLocked:
            return AccountNotice.asking(
                key, .unlockKeyring, why: "\(key.name)'s new tokens could not be written to it", &turn)
        case .read(.failure(let e)) where e.code == .keyringLocked && asked(),
            .reread(.failure(let e), _, _) where e.code == .keyringLocked && asked():
            return AccountNotice.asking(key, .unlockKeyring, why: "\(key.name)'s tokens cannot be read", &turn)
        case .checked(.failure(let e)) where e.code == .keyringLocked && asked():
            return AccountNotice.asking(
                key, .unlockKeyring, why: "\(key.name)'s token needs a refresh whose new set it could not keep", &turn)
        case .read(.success), .reread(.success, _, _), .checked(.success), .written(nil, _):
            return AccountNotice.withdrawing(key, .unlockKeyring, &turn)
        case .read, .reread, .checked, .written, .metadata, .refreshed, .deleted, .slow:
            return Transition()
        }
    }

    private mutating func step(_ event: Event, op: OperationID, _ state: inout AccountTokens, _ turn: inout Turn)
        -> Transition
    {
        switch event {
        case .deleted:
            // A sign-in that ended: nothing waits on the keyring forgetting it.
            return Transition(core: [.finish(op)])

        case .slow:
            // The provider is slow to answer the refresh: callers whose token is still live get it now, saying so;
            // the others wait on, and the refresh's answer is kept whenever it lands. Late (the refresh landed, or a
            // later stage): nothing.
            guard stage == .refreshing else { return Transition() }
            let seconds = Self.patienceMilliseconds / 1000
            return AccountBook.answerWaiters(
                of: key, state: state, refusal: nil, anyLive: true,
                warning:
                    "\(key.name)'s provider has not answered its refresh in \(seconds) s; this token is still valid (the refresh goes on, and its tokens are kept when they come)",
                &turn)

        case .read(.success(let kept)):
            keyringAnswered = true
            state.loaded = true
            // A token refused while the read was under way stays refused.
            state.tokens = kept?.keepingRejections(of: state.tokens)
            if let account, let kept, let why = AccountBook.unboundUnderRequire(account, kept) {
                return AccountBook.signedOut(self, op, state, because: why, &turn).then(
                    Revoking.start(account, kept, &turn))
            }
            return land(op, state, refreshed: false, &turn)

        case .metadata(.success(let m)):
            guard let account, let used = state.tokens?.refreshToken else {
                return land(op, state, refreshed: true, &turn)
            }
            metadata = m
            // Stopping (SIGTERM): a refresh now would spend the token with no time left to keep its answer.
            if RefreshHold.of(state, store: account.store, stopping: turn.core.stopWanted, now: turn.now, flying: true)
                != nil
            {
                return AccountBook.refreshFailed(key, op, state, AccountBook.stoppingWhy, provider: false, &turn)
            }
            return refresh(op, account, used, key: state.tokens?.dpopKey)

        case .checked(.success(let kept)):
            keyringAnswered = true
            // Another process refreshed since memory was read (its refresh token is the live one): its set is the
            // account's. A set memory holds that the keyring has not taken is newer than any there.
            if state.unsaved == nil, let kept, kept.refreshToken != nil,
                kept.refreshToken != state.tokens?.refreshToken
            {
                state.tokens = kept.keepingRejections(of: state.tokens)
                if AccountBook.waitersAllServed(key, state, &turn) { return land(op, state, refreshed: false, &turn) }
            }
            guard let account, let used = state.tokens?.refreshToken,
                RefreshHold.of(state, store: account.store, stopping: turn.core.stopWanted, now: turn.now, flying: true)
                    == nil
            else {
                return land(op, state, refreshed: true, &turn)
            }
            var t = refresh(op, account, used, key: state.tokens?.dpopKey)
            t.core.append(turn.set(key, state))
            return t

        case .checked(.failure(let e)):
            return AccountBook.keyringHeldBack(key, op, state, e, account: account, &turn)

        case .refreshed(.success(let fresh), _) where account?.dpop == .require && DPoPBinding.unbound(fresh) != nil:
            // The provider may have rotated the refresh token into this unbound set: nothing of it is kept (it is
            // revoked), and a new sign-in binds again.
            let revoked = account.map { Revoking.start($0, fresh, &turn) } ?? Transition()
            return AccountBook.signedOut(self, op, state, because: DPoPBinding.unbound(fresh) ?? "", &turn).then(
                revoked)

        case .refreshed(.success(let fresh), _)
        where fresh.subject != nil && state.tokens?.subject != nil && fresh.subject != state.tokens?.subject:
            // OpenID Connect Core §12.2: a refreshed ID token names the same subject as the first. Another one is not
            // this account's sign-in: nothing of it is kept (it is revoked), and the person signs in again.
            let revoked = account.map { Revoking.start($0, fresh, &turn) } ?? Transition()
            return AccountBook.signedOut(
                self, op, state,
                because: "the provider's refreshed ID token names another subject than the one who signed in", &turn
            ).then(revoked)

        case .refreshed(.success(let fresh), let used) where !target.isOwn:
            return narrowed(fresh, used: used, op: op, &state, &turn)

        case .refreshed(.success(var fresh), let used):
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
            guard account?.store != .memory else {
                state.tokens = fresh
                return land(op, state, refreshed: true, &turn).telling(
                    AccountNews.of(key, .refreshed, expiresAt: fresh.expiresAt, in: turn.core))
            }
            stage = .writing(fresh)
            return Transition(effects: [.start(op, .flight(.write(key, fresh)))])

        case .refreshed(.failure(let failure), let used):
            let said = failure.providerError ?? failure.httpStatus.map { "HTTP \($0)" } ?? failure.code.rawValue
            let refusal = RouterError(.notSignedIn, "the provider refused the refresh token (\(said))")
            guard RefreshRefusal.endsSignIn(failure) else {
                return AccountBook.refreshFailed(
                    key, op, state, failure.message, provider: !RefreshRefusal.isLocal(failure.code),
                    unanswered: failure.unanswered, &turn)
            }
            guard account?.store != .memory else {
                return AccountBook.signedOut(self, op, state, because: refusal.message, &turn)
            }
            stage = .rereading
            return Transition(effects: [.start(op, .flight(.reread(key, used: used, refusal: refusal)))])

        case .reread(.success(let kept), let used, let refusal):
            // Another process refreshed meanwhile: its refresh token is the live one.
            if let kept, let live = kept.refreshToken, live != used, let account {
                keyringAnswered = true
                state.tokens = kept
                if AccountBook.waitersAllServed(key, state, &turn)
                    || RefreshHold.of(
                        state, store: account.store, stopping: turn.core.stopWanted, now: turn.now, flying: true) != nil
                {
                    return land(op, state, refreshed: true, &turn)
                }
                var t = refresh(op, account, live, key: kept.dpopKey)
                t.core.append(turn.set(key, state))
                return t
            }
            return AccountBook.signedOut(self, op, state, because: refusal.message, &turn)

        case .written(let error, let written):
            // A server refused the set while it was being written (`RejectToken`): the rejection stays.
            // A refresh's new set is news (a sign-in's was said when it was kept, `AccountBook.keepTokens`; a set
            // written again is not).
            let isNew =
                account != nil
                && !(state.tokens.map { ConstantTime.equals($0.accessToken, written.accessToken) } ?? false)
            let fresh = written.keepingRejections(of: state.tokens)
            state.tokens = fresh
            // The narrower token whose answer rotated the refresh token: anyone's now that the new one is kept.
            if let narrow = pendingNarrow {
                state.narrow[target] = narrow
                pendingNarrow = nil
            }
            let news = isNew ? AccountNews.of(key, .refreshed, expiresAt: fresh.expiresAt, in: turn.core) : nil
            state.loaded = true
            state.refreshWorked()
            let refreshed = refreshSent
            guard let error else {
                keyringAnswered = true
                state.unsaved = nil
                let dropped = SetAside.taken(key, &state)
                var t = land(op, state, refreshed: refreshed, &turn).telling(news)
                t.effects += dropped
                return t
            }
            state.unsaved = error.message
            let name = key.name
            var t = land(op, state, refreshed: refreshed, &turn)
            t.effects.append(
                .log(
                    LogLine(
                        .warning,
                        "\(name)'s new tokens could not be written to the keyring (\(error.message)); they are kept in memory until a write works"
                    )))
            return t.telling(news)

        case .metadata(.failure(let e)):
            return AccountBook.refreshFailed(
                key, op, state, e.message, provider: !RefreshRefusal.isLocal(e.code), &turn)

        case .read(.failure(let e)), .reread(.failure(let e), _, _):
            // The keyring could not be asked: nothing is forgotten.
            state.flight = nil
            return AccountBook.answerWaiters(of: key, state: state, refusal: e, &turn).finishing(
                op, turn.set(key, state))
        }
    }

    /// The refresh, which proves the key the tokens were bound to at sign-in (their refresh token is bound to it,
    /// RFC 9449 §5); the metadata first when the flight has none.
    private mutating func refresh(_ op: OperationID, _ account: Account, _ refreshToken: String, key dpop: DPoPKey?)
        -> Transition
    {
        guard let m = metadata else {
            stage = .discovering
            return Transition(effects: [.start(op, .flight(.discover(issuer: account.issuer)))])
        }
        // The keyring asked first, fresh, whether it can take what the refresh brings: a refresh token is spent
        // only when its successor can be kept.
        if account.store == .keyring, !keyringAnswered {
            stage = .checking
            return Transition(effects: [.start(op, .flight(.check(key)))])
        }
        keyringAnswered = false
        refreshSent = true
        stage = .refreshing
        let patience = Effect.start(op, .flight(.patience(milliseconds: Self.patienceMilliseconds)))
        let grant = TokenGrant(
            tokenEndpoint: m.tokenEndpoint, jwksURI: m.jwksURI,
            expected: IDTokenClaims.Expected(issuer: m.issuer, clientID: account.clientID, nonce: nil),
            requiresIDToken: false, dpop: dpop.map { DPoPBinding(key: $0, required: account.dpop == .require) })
        return Transition(effects: [
            .start(op, .flight(.refresh(grant, refreshToken: refreshToken, target: target))), patience,
        ])
    }

    /// How long callers wait on a refresh before those with a live token get it (`slow`).
    static let patienceMilliseconds: Int64 = 10_000

    /// The flight ended with `state`: the waiters it can serve are answered.
    /// Those that need more life than a kept token has get a refresh (the
    /// flight goes on), unless this flight just refreshed.
    private mutating func land(_ op: OperationID, _ state: AccountTokens, refreshed: Bool, _ turn: inout Turn)
        -> Transition
    {
        var state = state
        refreshSent = false
        if refreshed { refreshedTargets.append(target) }
        // The first waiter no kept token serves, whose target this flight has not refreshed yet: refreshed next.
        let done = refreshedTargets
        let next = turn.core.held.tokenWaits(of: key).first { _, w in
            !done.contains(w.target)
                && !state.usable(w.kind, minValid: w.minValid, now: turn.now, target: w.target)
        }?.wait.target
        if let next, let account, state.tokens?.refreshToken != nil,
            RefreshHold.of(state, store: account.store, stopping: turn.core.stopWanted, now: turn.now, flying: true)
                == nil
        {
            var t = AccountBook.answerWaiters(
                of: key, state: state, refusal: nil, liveFor: refreshedTargets, refusals: refusals, &turn)
            target = next
            state.flight = op
            t.core.append(turn.set(key, state))
            guard let used = state.tokens?.refreshToken else { return t }
            return t.then(refresh(op, account, used, key: state.tokens?.dpopKey))
        }
        state.flight = nil
        let refusal =
            state.tokens == nil
            ? AccountBook.notSignedIn(key, nil)
            : RouterError(.refreshFailed, "\(key.name)'s token has expired, and refreshing it gave no live one")
        let asked = turn.core.held.tokenWaits(of: key).contains { !$0.wait.interactive }
        // Just refreshed: the provider's tokens may live less than min_valid; the freshest live one is the best there
        // is.
        let t = AccountBook.answerWaiters(
            of: key, state: state, refusal: refusal, liveFor: refreshedTargets, refusals: refusals, &turn
        )
        .finishing(op, turn.set(key, state))
        .then(BackgroundRefresh.following(key, account: account, &turn))
        // A caller found the account signed out: the person is told (once), with the action that signs in.
        guard state.tokens == nil, asked, let account else { return t }
        return t.then(AccountNotice.asking(account.key, .signIn, why: "it is not signed in", &turn))
    }
}

extension TokenFlight {
    /// A narrower token came back (`target`): it is kept for its target, never as the account's own; a refresh token
    /// it brings is the account's new one (one chain), written to the keyring before anyone gets the narrower token.
    /// A provider that answers with a wider scope than asked is said so to the waiters, and nothing of the token is
    /// handed out (the rotated refresh token is kept all the same).
    mutating func narrowed(
        _ fresh: TokenSet, used: String, op: OperationID, _ state: inout AccountTokens, _ turn: inout Turn
    ) -> Transition {
        state.refreshWorked()
        var kept: TokenSet? = fresh
        kept?.refreshToken = nil
        kept?.idToken = nil
        kept?.claims = nil
        kept?.scope = fresh.scope ?? target.scope
        kept?.dpopKey = state.tokens?.dpopKey
        var t = Transition()
        if !target.allows(fresh.scope) {
            let answered = fresh.scope ?? "?"
            state.widerAnswers[target] = answered
            let refusal = AccountBook.widerRefusal(key.name, asked: target.scope ?? "\(target)", answered: answered)
            refusals[target] = refusal
            kept = nil
            let name = key.name
            t.effects.append(.log(LogLine(.warning, "\(name): \(refusal.message)")))
        }
        guard var own = state.tokens, let rotated = fresh.refreshToken, rotated != used, account?.store != .memory
        else {
            if let rotated = fresh.refreshToken, rotated != used { state.tokens?.refreshToken = rotated }
            if let kept { state.narrow[target] = kept }
            return t.then(land(op, state, refreshed: true, &turn))
        }
        // Its waiters hear a refusal now; a narrower token waits for the write (`pendingNarrow`).
        if refusals[target] != nil {
            t = t.then(AccountBook.answerWaiters(of: key, state: state, refusal: nil, refusals: refusals, &turn))
        }
        own.refreshToken = rotated
        pendingNarrow = kept
        stage = .writing(own)
        state.tokens = own
        t.core.append(turn.set(key, state))
        t.effects.append(.start(op, .flight(.write(key, own))))
        return t
    }
}

extension Transition {
    /// With operation `op` done and `change` (the account's state) taken in.
    func finishing(_ op: OperationID, _ change: CoreChange) -> Transition {
        var t = self
        t.core.append(.finish(op))
        t.core.append(change)
        return t
    }
}

extension Turn {
    /// `state` is what this event decided of `key`'s tokens: later steps of the event see it, and the core takes it in.
    mutating func set(_ key: AccountKey, _ state: AccountTokens) -> CoreChange {
        accounts[key] = state
        return .account(key, state)
    }
}
