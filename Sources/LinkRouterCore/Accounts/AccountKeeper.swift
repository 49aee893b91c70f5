/// One account as the daemon keeps it (`Router.keepers`, under the account's key as a login is under its session):
/// its tokens, and the state of the work the account does. Memory is a cache of the keyring for the daemon's life
/// (or, with `store=memory`, the only copy); `flight` is the one read, refresh or write under way, which every caller
/// for the account waits on: a rotating refresh token is spent once, never by two callers at the same time.
/// The results of its parts' operations (the flight, the timer for refreshing ahead, the notice: `AccountPart`) come
/// back here (`Running.account(key, work)`), so nothing but the account's own keeper says what the account is doing.
public struct AccountKeeper: Sendable, Equatable {
    public var tokens: TokenSet?
    /// Whether the keyring has been read (for `store=memory`, always).
    public var loaded: Bool
    /// The flight under way (nil: the account is idle), its stage the account's state: reading, discovering,
    /// checking the keyring, refreshing a target, re-reading after a refusal, writing.
    public var flight: TokenFlight?
    /// Why the last keyring write failed: the tokens are in memory only until a write works.
    public var unsaved: String?
    /// Whether a copy of the set waits in the runtime directory (`SetAside`): set aside by an earlier daemon, or by
    /// this one at a stop. Deleted once the keyring takes the set, or when the sign-in ends.
    public var setAside = false
    /// Refreshes in a row the provider failed (unreachable, 5xx; never a
    /// refusal of the token), and when the next may be tried: a provider that
    /// is down is not asked again at every call (`backoff`).
    public var failures: Int
    public var retryAt: Int64?
    /// Why the last refresh failed, for callers answered while it backs off.
    public var lastFailure: String?
    /// Whether the keyring's default collection was locked at the last keyring call (nil: not asked yet).
    public var keyringLocked: Bool?
    /// The timer of its refresh ahead of need (`BackgroundRefresh`), while one is set.
    public var refreshTimer: BackgroundRefresh?
    /// Its notice to the person (`AccountNotice`), while one is up, and when the last was shown and for what.
    public var notice: AccountNotice?
    public var noticeAt: Int64?
    public var noticeAbout: AccountNotice.Purpose?
    /// Narrower tokens (`TokenTarget`), in memory only: access tokens, never a refresh token (the account's own is
    /// the one chain).
    public var narrow: [TokenTarget: TokenSet] = [:]
    /// Narrower targets whose refresh the provider answered with a wider scope (a provider that does not narrow a
    /// refresh, as Glewlwyd ignores its `scope`), and the scope it answered: not asked again until the next sign-in,
    /// since each ask spends a refresh token for a token that is never handed out.
    public var widerAnswers: [TokenTarget: String] = [:]
    /// Apps the person said Deny to, and until when they are refused without being asked again (`coolOffSeconds`):
    /// an app cannot wear the person down by asking at once.
    private(set) var deniedUntil: [CallerApp: Int64] = [:]

    /// How long an app the person denied this account to is refused without a prompt.
    public static let coolOffSeconds: Int64 = 60

    /// The person said Deny to `app` at `now`: it is not asked again for `coolOffSeconds`.
    mutating func deny(_ app: CallerApp, now: Int64) { deniedUntil[app] = now + Self.coolOffSeconds }

    /// Seconds left before `app`, denied this account, may be asked again; nil when it may be now.
    func coolingOff(_ app: CallerApp, now: Int64) -> Int64? {
        guard let until = deniedUntil[app], until > now else { return nil }
        return until - now
    }

    public init(tokens: TokenSet? = nil, loaded: Bool = false, unsaved: String? = nil) {
        self.tokens = tokens
        self.loaded = loaded
        self.unsaved = unsaved
        failures = 0
    }

    /// The set its flight is writing to the keyring, if it is writing one: the account's newest (a sign-out names and
    /// revokes it).
    var beingWritten: TokenSet? {
        if case .writing(let tokens)? = flight?.stage { tokens } else { nil }
    }

    /// The account's work `work` under `op` is over: the keeper no longer holds it (`Router.apply`, at `.finish`).
    mutating func end(_ work: AccountWork, _ op: OperationID) {
        switch work {
        case .flight: if flight?.op == op { flight = nil }
        case .refreshTimer: if refreshTimer?.op == op { refreshTimer = nil }
        case .notice: if notice?.op == op { notice = nil }
        case .forgetting: break
        }
    }

    /// Seconds before the next refresh after `failures` failed in a row: 5, 10, 20, … at most 300.
    public static func backoff(after failures: Int) -> Int64 { min(300, 5 << Int64(min(max(failures, 1) - 1, 6))) }

    /// A refresh failed at `now`: the next waits.
    mutating func refreshFailed(_ why: String, now: Int64) {
        failures += 1
        retryAt = now + Self.backoff(after: failures)
        lastFailure = why
    }

    /// A refresh worked (or a sign-in replaced the set): the next is tried when needed.
    mutating func refreshWorked() {
        failures = 0
        retryAt = nil
        lastFailure = nil
    }

    /// What a keyring call said of the collection: locked, or not (any other failure says nothing of it).
    mutating func noteKeyring(_ r: Result<Void, RouterError>) {
        switch r {
        case .success: keyringLocked = false
        case .failure(let e) where e.code == .keyringLocked: keyringLocked = true
        case .failure: break
        }
    }

    /// The set a caller asking for `target` gets: the account's own, or the narrower token kept for it.
    func set(for target: TokenTarget) -> TokenSet? { target.isOwn ? tokens : narrow[target] }

    /// The token of `kind` for `target` when it has `minValid` seconds left at `now`.
    func usable(_ kind: Account.TokenKind, minValid: Int64, now: Int64, target: TokenTarget = TokenTarget()) -> Bool {
        guard let t = set(for: target) else { return false }
        switch kind {
        case .access:
            return t.expiresAt.map { $0 - now >= minValid } ?? true
        case .id:
            guard t.idToken != nil else { return false }
            return (t.idTokenExpiresAt ?? t.expiresAt).map { $0 - now >= minValid } ?? true
        }
    }
}
