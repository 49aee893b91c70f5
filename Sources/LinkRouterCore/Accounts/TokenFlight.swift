/// One account's keyring read, refresh or write: the one flight every caller
/// for the account waits on, so a rotating refresh token is spent once, never
/// by two callers at the same time. The rules (`AccountKeeper`): the new refresh
/// token is written before anyone gets the new access token; a write that
/// fails keeps the set in memory and says so; a refusal of the refresh token
/// (`RefreshRefusal`) ends a sign-in, and only after the keyring was read
/// again (another process may have refreshed).
///
/// Each of its operations answers with its own event, carrying what the
/// flight needs to go on (the refresh token a refresh spent, the set a write
/// wrote), so no event can arrive at a stage that does not expect it.
public struct TokenFlight: AccountPart {
    /// Where the flight is, for the log and for a sign-out (which names and revokes a set being written).
    public enum Stage: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
        case reading, discovering, checking, refreshing, rereading
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
            }
        }
        public var debugDescription: String { description }
    }

    /// The operation its every step runs as: `Router.running` has `.account(key, .flight)` under it, and the account's
    /// keeper has this flight (`AccountKeeper.flight`) while it flies.
    public let op: OperationID
    public let key: AccountKey
    /// The account's declaration (nil for a sign-in's write, or a read or write the keyring's
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

        /// Which answer it is, for a log line (never what it carries).
        var kind: String {
            switch self {
            case .read: "a keyring read"
            case .metadata: "the issuer's metadata"
            case .checked: "a keyring check"
            case .refreshed: "a refresh"
            case .slow: "the refresh's patience"
            case .reread: "a keyring re-read"
            case .written: "a keyring write"
            }
        }
    }

    private init(op: OperationID, key: AccountKey, account: Account?, stage: Stage) {
        self.op = op
        self.key = key
        self.account = account
        self.stage = stage
    }

    static var work: AccountWork { .flight }
    static var slot: WritableKeyPath<AccountKeeper, TokenFlight?> { \.flight }

    // MARK: Starting: the three ways a flight begins

    /// The account's item read from the keyring (its first use in this daemon's life, or the keyring changed).
    static func reading(_ key: AccountKey, account: Account?, state: AccountKeeper, _ turn: inout Turn) -> Transition {
        start(key, account, .reading, .read(key), state: state, &turn)
    }

    /// A set written to the keyring (a sign-in's, a refusal noted, one kept in memory tried again).
    static func writing(
        _ tokens: TokenSet, _ key: AccountKey, account: Account?, state: AccountKeeper, _ turn: inout Turn
    ) -> Transition {
        start(key, account, .writing(tokens), .write(key, tokens), state: state, &turn)
    }

    /// A refresh for `target`: the issuer's metadata first, then (`refresh`) the keyring asked and the token spent.
    static func refreshing(
        _ account: Account, target: TokenTarget = TokenTarget(), state: AccountKeeper, _ turn: inout Turn
    ) -> Transition {
        start(
            account.key, account, .discovering, .discover(issuer: account.issuer), target: target, state: state, &turn)
    }

    /// A flight started: tracked under the account, its first operation begun, the account's keeper holding it.
    private static func start(
        _ key: AccountKey, _ account: Account?, _ stage: Stage, _ work: Work, target: TokenTarget = TokenTarget(),
        state: AccountKeeper, _ turn: inout Turn
    ) -> Transition {
        let op = turn.ids.take()
        var flight = TokenFlight(op: op, key: key, account: account, stage: stage)
        flight.target = target
        var state = state
        state.flight = flight
        return Transition(
            core: [.track(op, .account(key, .flight)), turn.set(key, state)], effects: [.start(op, .flight(work))])
    }

    /// Whether an answer on its way carries what a provider gives once (a refresh's new tokens) or a set not yet in
    /// the keyring: a SIGTERM waits for it (`Router.stopIfSettled`). Before the refresh is sent nothing is spent, and a
    /// stop means only that the next daemon asks again.
    var landsSecrets: Bool {
        switch stage {
        case .refreshing, .writing: true
        case .reading, .discovering, .checking, .rereading: false
        }
    }

    /// One result of the flight's operation; the keeper takes the flight's next state (`Router.completed`).
    mutating func handle(_ event: Event, _ turn: inout Turn) -> Transition {
        let op = self.op
        adoptingDeclaration(turn)
        var state = turn.keepers[key] ?? AccountKeeper()
        let t = noting(event, op: op, &state, &turn)
        return t.then(AccountKeeper.settlingLists(&turn))
    }

    /// A flight begun without the account's declaration (a read the keyring's `CollectionChanged` started, a
    /// write of a set it could not take) takes the one its first waiter brought: a caller that asked for a fresh
    /// token while it flew gets a refresh, not a refusal the provider never saw (issue 47, case 4).
    private mutating func adoptingDeclaration(_ turn: Turn) {
        guard account == nil else { return }
        account = turn.core.held.tokenWaits(of: key).lazy.compactMap(\.wait.account).first { $0.key == key }
    }

    /// What the keyring said shows where the tokens live; then the event's step.
    private mutating func noting(_ event: Event, op: OperationID, _ state: inout AccountKeeper, _ turn: inout Turn)
        -> Transition
    {
        // What the keyring said shows where the tokens live (`ListAccounts`: locked or not).
        let wasLocked = state.keyringLocked
        switch event {
        case .read(let r), .reread(let r, _, _), .checked(let r): state.noteKeyring(r.map { _ in () })
        case .written(let e, _): state.noteKeyring(e.map { .failure($0) } ?? .success(()))
        case .metadata, .refreshed, .slow: break
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
        case .read, .reread, .checked, .written, .metadata, .refreshed, .slow:
            return Transition()
        }
    }

    /// The event as the flight's stage expects it: each stage waits on one kind of answer (and a refresh on its
    /// patience timer too), so the switch is over the stage, and an answer a stage did not ask for is said, not
    /// taken (`unexpected`).
    private mutating func step(_ event: Event, op: OperationID, _ state: inout AccountKeeper, _ turn: inout Turn)
        -> Transition
    {
        switch stage {
        case .reading:
            guard case .read(let r) = event else { return unexpected(event) }
            return read(r, op: op, &state, &turn)
        case .discovering:
            guard case .metadata(let r) = event else { return unexpected(event) }
            return discovered(r, op: op, &state, &turn)
        case .checking:
            guard case .checked(let r) = event else { return unexpected(event) }
            return checked(r, op: op, &state, &turn)
        case .refreshing:
            switch event {
            case .refreshed(let r, let used): return refreshed(r, used: used, op: op, &state, &turn)
            case .slow: return slow(state, &turn)
            case .read, .metadata, .checked, .reread, .written: return unexpected(event)
            }
        case .rereading:
            guard case .reread(let r, let used, let refusal) = event else { return unexpected(event) }
            return reread(r, used: used, refusal: refusal, op: op, &state, &turn)
        case .writing:
            guard case .written(let error, let written) = event else { return unexpected(event) }
            return wrote(written, error: error, op: op, &state, &turn)
        }
    }

    /// An answer the flight's stage did not ask for: a refresh's patience timer that fires once the refresh has
    /// landed (late: nothing to do), or work of another stage, which nothing in the core starts. Nothing of it is
    /// taken (it may carry tokens), and the flight goes on waiting for its own answer.
    private func unexpected(_ event: Event) -> Transition {
        if case .slow = event { return Transition() }
        return Transition().logging(
            LogLine(.warning, "\(key.name)'s token flight, \(stage), got an answer it did not ask for (\(event.kind))"))
    }

    /// The provider is slow to answer the refresh: callers whose token is still live get it now, saying so; the
    /// others wait on, and the refresh's answer is kept whenever it lands.
    private func slow(_ state: AccountKeeper, _ turn: inout Turn) -> Transition {
        let seconds = Self.patienceMilliseconds / 1000
        return AccountKeeper.answerWaiters(
            of: key, state: state, refusal: nil, anyLive: true,
            warning:
                "\(key.name)'s provider has not answered its refresh in \(seconds) s; this token is still valid (the refresh goes on, and its tokens are kept when they come)",
            &turn)
    }

    /// The account's item, read: memory takes it (a token refused while the read was under way stays refused).
    private mutating func read(
        _ r: KeyringRead, op: OperationID, _ state: inout AccountKeeper, _ turn: inout Turn
    ) -> Transition {
        guard case .success(let kept) = r else { return keyringUnread(r, op: op, &state, &turn) }
        keyringAnswered = true
        state.loaded = true
        state.tokens = kept?.keepingRejections(of: state.tokens)
        if let account, let kept, let why = AccountKeeper.unboundUnderRequire(account, kept) {
            return AccountKeeper.signedOut(self, op, state, because: why, &turn).then(
                Revoking.start(account, kept, &turn))
        }
        return land(op, state, refreshed: false, &turn)
    }

    /// The keyring could not be asked (a read or a re-read failed): nothing is forgotten, the waiters hear why.
    private func keyringUnread(
        _ r: KeyringRead, op: OperationID, _ state: inout AccountKeeper, _ turn: inout Turn
    ) -> Transition {
        guard case .failure(let e) = r else { return Transition() }
        state.flight = nil
        return AccountKeeper.answerWaiters(of: key, state: state, refusal: e, &turn).finishing(op, turn.set(key, state))
    }

    /// The issuer's metadata: the refresh goes on (the keyring asked first), unless the daemon began to stop.
    private mutating func discovered(
        _ r: Result<ProviderMetadata, RouterError>, op: OperationID, _ state: inout AccountKeeper, _ turn: inout Turn
    ) -> Transition {
        let m: ProviderMetadata
        switch r {
        case .success(let found): m = found
        case .failure(let e):
            return AccountKeeper.refreshFailed(
                key, op, state, e.message, provider: !RefreshRefusal.isLocal(e.code), &turn)
        }
        guard let account, let used = state.tokens?.refreshToken else {
            return land(op, state, refreshed: true, &turn)
        }
        metadata = m
        // Stopping (SIGTERM): a refresh now would spend the token with no time left to keep its answer.
        if state.refreshHold(store: account.store, stopping: turn.core.stopWanted, now: turn.now, flying: true)
            != nil
        {
            return AccountKeeper.refreshFailed(key, op, state, AccountKeeper.stoppingWhy, provider: false, &turn)
        }
        return refresh(op, account, used, key: state.tokens?.dpopKey)
    }

    /// The keyring asked right before the refresh: it can take the new set (the refresh is sent), or not (nothing is
    /// spent); another process's newer set found there is the account's.
    private mutating func checked(
        _ r: KeyringRead, op: OperationID, _ state: inout AccountKeeper, _ turn: inout Turn
    ) -> Transition {
        let kept: TokenSet?
        switch r {
        case .success(let found): kept = found
        case .failure(let e): return AccountKeeper.keyringHeldBack(key, op, state, e, account: account, &turn)
        }
        keyringAnswered = true
        // Another process refreshed since memory was read (its refresh token is the live one): its set is the
        // account's. A set memory holds that the keyring has not taken is newer than any there.
        if state.unsaved == nil, let kept, kept.refreshToken != nil, kept.refreshToken != state.tokens?.refreshToken {
            state.tokens = kept.keepingRejections(of: state.tokens)
            if AccountKeeper.waitersAllServed(key, state, &turn) { return land(op, state, refreshed: false, &turn) }
        }
        guard let account, let used = state.tokens?.refreshToken,
            state.refreshHold(store: account.store, stopping: turn.core.stopWanted, now: turn.now, flying: true)
                == nil
        else {
            return land(op, state, refreshed: true, &turn)
        }
        var t = refresh(op, account, used, key: state.tokens?.dpopKey)
        t.core.append(turn.set(key, state))
        return t
    }

    /// The refresh's answer. A set is checked in this order: not bound to the key `dpop=require` asks for, or naming
    /// another subject (either: nothing of it is kept, it is revoked, the person signs in again); a narrower target's
    /// token (`narrowed`); else the account's new set, written before anyone gets it. A refusal of the refresh token
    /// is believed only after the keyring is read again; a failure to reach the provider backs off.
    private mutating func refreshed(
        _ r: Result<TokenSet, SessionFailure>, used: String, op: OperationID, _ state: inout AccountKeeper,
        _ turn: inout Turn
    ) -> Transition {
        guard case .success(var fresh) = r else {
            guard case .failure(let failure) = r else { return Transition() }
            return refreshRefused(failure, used: used, op: op, state, &turn)
        }
        if account?.dpop == .require, let why = DPoPBinding.unbound(fresh) {
            // The provider may have rotated the refresh token into this unbound set: nothing of it is kept.
            let revoked = account.map { Revoking.start($0, fresh, &turn) } ?? Transition()
            return AccountKeeper.signedOut(self, op, state, because: why, &turn).then(revoked)
        }
        if let subject = fresh.subject, let before = state.tokens?.subject, subject != before {
            // OpenID Connect Core §12.2: a refreshed ID token names the same subject as the first. Another one is not
            // this account's sign-in.
            let revoked = account.map { Revoking.start($0, fresh, &turn) } ?? Transition()
            return AccountKeeper.signedOut(
                self, op, state,
                because: "the provider's refreshed ID token names another subject than the one who signed in", &turn
            ).then(revoked)
        }
        if !target.isOwn { return narrowed(fresh, used: used, op: op, &state, &turn) }
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
            fresh.acr = old.acr
            fresh.authTime = old.authTime
        }
        guard account?.store != .memory else {
            state.tokens = fresh
            return land(op, state, refreshed: true, &turn).telling(
                AccountNews.of(key, .refreshed, expiresAt: fresh.expiresAt, in: turn.core))
        }
        stage = .writing(fresh)
        return Transition(effects: [.start(op, .flight(.write(key, fresh)))])
    }

    /// The provider did not give a new set: a refusal of the refresh token (after the keyring is read again, in case
    /// another process refreshed), or a failure to retry after a backoff.
    private mutating func refreshRefused(
        _ failure: SessionFailure, used: String, op: OperationID, _ state: AccountKeeper, _ turn: inout Turn
    ) -> Transition {
        let said = failure.providerError ?? failure.httpStatus.map { "HTTP \($0)" } ?? failure.code.rawValue
        if !target.isOwn, let refused = RefreshRefusal.refusesTarget(failure) {
            // Only this narrower token is refused: the refresh token (the failed request spent none) stays.
            let why = RouterError(
                .tokenExchangeFailed,
                "\(key.name)'s provider will not make a token for \(target) (\(refused): \(failure.message)); the sign-in is kept: ask for the account's own token, or declare an account for that target"
            )
            refusals[target] = why
            var state = state
            state.refreshWorked()
            let name = key.name
            return Transition(effects: [.log(LogLine(.warning, "\(name): \(why.message)"))]).then(
                land(op, state, refreshed: true, &turn))
        }
        let refusal = RouterError(.notSignedIn, "the provider refused the refresh token (\(said))")
        guard RefreshRefusal.endsSignIn(failure) else {
            return AccountKeeper.refreshFailed(
                key, op, state, failure.message, provider: !RefreshRefusal.isLocal(failure.code),
                unanswered: failure.unanswered, &turn)
        }
        guard account?.store != .memory else {
            return AccountKeeper.signedOut(self, op, state, because: refusal.message, &turn)
        }
        stage = .rereading
        return Transition(effects: [.start(op, .flight(.reread(key, used: used, refusal: refusal)))])
    }

    /// The keyring read again after the provider refused `used`: another process's newer refresh token is the live
    /// one (refreshed with, unless its set serves everyone); else the sign-in has ended.
    private mutating func reread(
        _ r: KeyringRead, used: String, refusal: RouterError, op: OperationID, _ state: inout AccountKeeper,
        _ turn: inout Turn
    ) -> Transition {
        guard case .success(let kept) = r else { return keyringUnread(r, op: op, &state, &turn) }
        if let kept, let live = kept.refreshToken, live != used, let account {
            keyringAnswered = true
            state.tokens = kept
            if AccountKeeper.waitersAllServed(key, state, &turn)
                || state.refreshHold(store: account.store, stopping: turn.core.stopWanted, now: turn.now, flying: true)
                    != nil
            {
                return land(op, state, refreshed: true, &turn)
            }
            var t = refresh(op, account, live, key: kept.dpopKey)
            t.core.append(turn.set(key, state))
            return t
        }
        return AccountKeeper.signedOut(self, op, state, because: refusal.message, &turn)
    }

    /// The set written to the keyring, or kept in memory with why not.
    private mutating func wrote(
        _ written: TokenSet, error: RouterError?, op: OperationID, _ state: inout AccountKeeper, _ turn: inout Turn
    ) -> Transition {
        // A server refused the set while it was being written (`RejectToken`): the rejection stays.
        // A refresh's new set is news (a sign-in's was said when it was kept, `AccountKeeper.keepTokens`; a set
        // written again is not).
        let isNew =
            account != nil && !(state.tokens.map { ConstantTime.equals($0.accessToken, written.accessToken) } ?? false)
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
    private mutating func land(_ op: OperationID, _ state: AccountKeeper, refreshed: Bool, _ turn: inout Turn)
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
            state.refreshHold(store: account.store, stopping: turn.core.stopWanted, now: turn.now, flying: true)
                == nil
        {
            var t = AccountKeeper.answerWaiters(
                of: key, state: state, refusal: nil, liveFor: refreshedTargets, refusals: refusals, &turn)
            target = next
            t.core.append(turn.set(key, state))
            guard let used = state.tokens?.refreshToken else { return t }
            return t.then(refresh(op, account, used, key: state.tokens?.dpopKey))
        }
        state.flight = nil
        let refusal =
            state.tokens == nil
            ? AccountKeeper.notSignedIn(key, nil)
            : RouterError(.refreshFailed, "\(key.name)'s token has expired, and refreshing it gave no live one")
        let asked = turn.core.held.tokenWaits(of: key).contains { !$0.wait.interactive }
        // Just refreshed: the provider's tokens may live less than min_valid; the freshest live one is the best there
        // is.
        let t = AccountKeeper.answerWaiters(
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
        _ fresh: TokenSet, used: String, op: OperationID, _ state: inout AccountKeeper, _ turn: inout Turn
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
            let refusal = AccountKeeper.widerRefusal(key.name, asked: target.scope ?? "\(target)", answered: answered)
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
            t = t.then(AccountKeeper.answerWaiters(of: key, state: state, refusal: nil, refusals: refusals, &turn))
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
    mutating func set(_ key: AccountKey, _ state: AccountKeeper) -> CoreChange {
        keepers[key] = state
        return .account(key, state)
    }
}
