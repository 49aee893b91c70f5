/// An account's tokens refreshed ahead of need (`refresh=ahead`, the
/// default): once a set with a refresh token is kept, a timer on the
/// boot-time clock is set for before `min_valid` runs out, so the first call
/// after the old expiry is answered from memory and never waits on the
/// provider (pizauth refreshes ahead the same way). When it fires, the
/// account's declaration is asked for afresh (its file may have changed or
/// gone), and the account's one flight refreshes as a caller's would: the
/// same write-first rule, the same backoff, the same refusals.
///
/// One timer per account, held by its keeper (`AccountKeeper.refreshTimer`): a new set moves it,
/// a sign-out drops it. Timers are spread per account (`jitter`), not
/// randomly: the core draws no randomness.
public struct BackgroundRefresh: AccountPart {
    /// The timer's operation (then the declaration's: the same one).
    public let op: OperationID
    public let key: AccountKey
    /// The earliest it may refresh (half the set's life, `floorSeconds` at least, after the set landed): a
    /// declaration read when it fires can bring the time forward, never before this.
    public let earliest: Int64
    /// Whether it is waiting for its time, or for the account's declaration.
    public var asking: Bool

    public enum Work: Sendable, Equatable {
        /// Wait until the refresh is due.
        case wait(milliseconds: Int64)
        /// The account's declaration as it is now.
        case declaration(AccountKey)
    }

    public enum Event: Sendable {
        case due
        case declared(Account?)
    }

    static var work: AccountWork { .refreshTimer }
    static var slot: WritableKeyPath<AccountKeeper, BackgroundRefresh?> { \.refreshTimer }

    init(op: OperationID, key: AccountKey, earliest: Int64) {
        self.op = op
        self.key = key
        self.earliest = earliest
        asking = false
    }

    mutating func handle(_ event: Event, _ turn: inout Turn) -> Transition {
        let op = self.op
        switch event {
        case .due:
            // Fired twice (the daemon's timer is one-shot): it is asking already.
            guard !asking else { return Transition() }
            asking = true
            return Transition(effects: [.start(op, .backgroundRefresh(.declaration(key)))])
        case .declared(let account):
            var state = turn.keepers[key] ?? AccountKeeper()
            // Only the keeper's current timer gets here (a newer one takes over its slot, `Router.completed`); the
            // declaration answers only a timer that fired.
            guard asking else { return Transition(core: [.finish(op)]) }
            state.refreshTimer = nil
            let done = Transition(core: [.finish(op), turn.set(key, state)])
            guard let account, account.key == key, account.refresh == .ahead, state.flight == nil,
                state.tokens?.refreshToken != nil
            else { return done }
            let hold = state.refreshHold(store: account.store, stopping: turn.core.stopWanted, now: turn.now)
            if hold == .stopping { return done }
            // Not yet (its min_valid is shorter than the timer assumed): later.
            guard let due = Self.due(state, minValid: account.minValidSeconds, key: key, earliest: earliest) else {
                return done
            }
            // The provider failed lately: the flight waits for its backoff, as a caller's would.
            var at = due
            if case .backingOff(let until)? = hold { at = max(due, until) }
            if at > turn.now { return done.then(Self.schedule(key, at: at, earliest: earliest, &turn)) }
            // The keyring was locked when it last answered: nothing is spent now (the new set could not be kept,
            // and the flight's own check would only say so again); again in a minute, or when the keyring says it
            // changed (`CollectionChanged` reads the account's item).
            if hold == .keyringLocked {
                return done.then(Self.schedule(key, at: turn.now + 60, earliest: turn.now + 60, &turn))
            }
            return done.then(TokenFlight.refreshing(account, state: state, &turn))
                .logging(LogLine(.info, "Refreshing \(account.name)'s tokens ahead of need"))
        }
    }

    // MARK: When

    /// The least time between two background refreshes of one account: a provider whose tokens live only seconds
    /// (a test's) is not asked over and over.
    static let floorSeconds: Int64 = 10

    /// When the account's tokens are due for a refresh ahead of need: `min_valid` and the account's spread before
    /// the access token (or, if it runs out first, the ID token) expires, but not before `earliest`; nil when they
    /// have no expiry or no refresh token.
    static func due(_ state: AccountKeeper, minValid: Int64, key: AccountKey, earliest: Int64) -> Int64? {
        guard let expires = expiry(state) else { return nil }
        return max(expires - minValid - jitter(key), earliest)
    }

    /// When the set's tokens run out (the first of them), if it has a refresh token to renew them with.
    static func expiry(_ state: AccountKeeper) -> Int64? {
        guard let tokens = state.tokens, tokens.refreshToken != nil else { return nil }
        return [tokens.expiresAt, tokens.idToken == nil ? nil : tokens.idTokenExpiresAt].compactMap { $0 }.min()
    }

    /// Seconds an account's refresh comes early, spread over accounts so a hundred of them do not ask their provider
    /// at the same second: 0 to 60, the same for an account every time.
    static func jitter(_ key: AccountKey) -> Int64 {
        // FNV-1a over the account's name and issuer.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.qualifiedName.utf8 + [0] + key.issuer.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return Int64(hash % 61)
    }

    // MARK: Setting and dropping the timer

    /// The account's timer set for `at` (an earlier one dropped).
    static func schedule(_ key: AccountKey, at: Int64, earliest: Int64, _ turn: inout Turn) -> Transition {
        var state = turn.keepers[key] ?? AccountKeeper()
        var t = dropping(key, &turn)
        state = turn.keepers[key] ?? state
        let op = turn.ids.take()
        state.refreshTimer = BackgroundRefresh(op: op, key: key, earliest: earliest)
        t.core.append(.track(op, .account(key, .refreshTimer)))
        t.core.append(turn.set(key, state))
        t.effects.append(.start(op, .backgroundRefresh(.wait(milliseconds: max(0, at - turn.now) * 1000))))
        return t
    }

    /// The account's timer dropped (it signed out, or a new one replaces it).
    static func dropping(_ key: AccountKey, _ turn: inout Turn) -> Transition {
        guard var state = turn.keepers[key], let timer = state.refreshTimer?.op else { return Transition() }
        state.refreshTimer = nil
        return Transition(core: [.finish(timer), turn.set(key, state)], effects: [.cancel(timer)])
    }

    /// After a flight or a sign-in left `key`'s tokens as the turn has them: the timer set for their next refresh
    /// ahead of need (with the declaration's `min_valid` when the flight knew it, else the default: the timer
    /// corrects itself when it fires), or dropped when there is nothing to refresh.
    static func following(_ key: AccountKey, account: Account?, _ turn: inout Turn) -> Transition {
        guard account?.refresh ?? .ahead == .ahead, let state = turn.keepers[key], let expires = expiry(state) else {
            return dropping(key, &turn)
        }
        let earliest = turn.now + max(floorSeconds, (expires - turn.now) / 2)
        let minValid = account?.minValidSeconds ?? Int64(Account.defaultMinValid)
        guard let at = due(state, minValid: minValid, key: key, earliest: earliest) else { return dropping(key, &turn) }
        return schedule(key, at: max(at, state.retryAt ?? at), earliest: earliest, &turn)
    }
}

extension Transition {
    /// With `line` logged after the rest.
    func logging(_ line: LogLine) -> Transition {
        var t = self
        t.effects.append(.log(line))
        return t
    }
}

extension Router {
    /// The daemon serves: every declared account that keeps its tokens in
    /// the keyring and refreshes ahead is read now (a flight each, which
    /// callers share), so its timer is set without waiting for a first call.
    /// Reading asks nothing of a provider, and a locked keyring only says so.
    public func startingAhead(_ accounts: [Account], now: Int64) -> Transition {
        var turn = Turn(self, now: now)
        var t = Transition(ifWriteFails: .keepInMemory)
        for account in accounts where account.store == .keyring && account.refresh == .ahead {
            let state = turn.keepers[account.key] ?? AccountKeeper()
            guard !state.loaded, state.flight == nil else { continue }
            t = t.then(TokenFlight.reading(account.key, account: account, state: state, &turn))
        }
        return t
    }
}
