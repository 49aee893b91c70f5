/// The table of sessions and every rule that decides what a link does to one.
///
/// Pure: no clock, no randomness, no I/O. The daemon passes `now` and the
/// secrets in, persists what `decide` returns, and only then calls `replace`.
public struct Router: Sendable {
    public let limits: Limits
    /// The sessions, densely (a dictionary of 249-byte values wastes a
    /// quarter of its slots), with an index by id.
    private var table: [Session] = []
    private var index: [SessionID: Int] = [:]
    /// Every session by its state, finished ones too, so a replay is known as one.
    private(set) var byState: [ByteKey: SessionID] = [:]
    /// Per owner: its sessions (finished ones too, so a client leaving the bus
    /// that owns none, as most do, costs a lookup, not a walk of the table)
    /// and its unfinished ones (threat model X2); and unfinished ones in all.
    private var owners: [ByteKey: (sessions: Int, pending: Int)] = [:]
    public private(set) var pendingCount = 0
    /// Match keys of the unfinished sessions' app callbacks (for the Vipps error quirk).
    private var appCallbackKeys: [ByteKey: Int] = [:]
    /// Match keys of the unfinished sessions' https callbacks, and a counter
    /// that moves whenever that set does (the daemon republishes it then).
    private var httpsKeys: [ByteKey: Int] = [:]
    public private(set) var claimedVersion = 0
    /// One copy of each callback and origin string, however many sessions use
    /// it, counted so an entry goes with its last session (loopback callbacks
    /// differ by port: kept forever they would grow without bound).
    private var callbacks: [ByteKey: (uri: CallbackURI, uses: Int)] = [:]
    private var strings: [ByteKey: (shared: String, uses: Int)] = [:]

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    // MARK: The table

    /// Checks that `plan` may become a session now: limits, and that an
    /// adopted state is not already in use (no session fixation, threat model D5).
    public func admit(_ plan: SessionPlan) throws(RouterError) {
        if pendingCount >= limits.maxPendingTotal {
            throw RouterError(.limitsExceeded, "the daemon already holds \(pendingCount) unfinished sessions, its limit; finish or cancel some first")
        }
        if (owners[ByteKey(plan.owner)]?.pending ?? 0) >= limits.maxPendingPerOwner {
            throw RouterError(.limitsExceeded, "this connection already holds \(limits.maxPendingPerOwner) unfinished sessions, the per-client limit; finish or cancel some first")
        }
        if let state = plan.adoptedState, byState[ByteKey(state)] != nil {
            throw .invalid("the adopted state is already in use by another session; a backend must make a fresh state for every login")
        }
    }

    /// Whether a freshly drawn state or id collides with one in the table.
    public func isInUse(state: String, id: SessionID) -> Bool {
        byState[ByteKey(state)] != nil || index[id] != nil
    }

    /// Every session, in no particular order.
    public var all: [Session] { table }

    public var count: Int { table.count }

    public mutating func insert(_ new: consuming Session) {
        var session = new
        session.redirect = intern(session.redirect)
        session.appCallback = session.appCallback.map { intern($0) }
        session.authorizationOrigin = intern(session.authorizationOrigin)
        if !session.resumeHosts.isEmpty { session.resumeHosts = session.resumeHosts.map { intern($0) } }
        session.issuer = session.issuer.map { intern($0) }
        let previous = index.updateValue(table.count, forKey: session.id)
        precondition(previous == nil, "insert of a session already in the table")
        let clash = byState.updateValue(session.id, forKey: ByteKey(session.state))
        precondition(clash == nil, "insert of a state already in the table")
        account(session, +1)
        table.append(session)
    }

    // One dictionary access each (the entry is counted and read in place).
    private mutating func intern(_ c: CallbackURI) -> CallbackURI {
        func use(_ entry: inout (uri: CallbackURI, uses: Int)) -> CallbackURI { entry.uses += 1; return entry.uri }
        return use(&callbacks[c.key, default: (c, 0)])
    }

    private mutating func release(_ c: CallbackURI) {
        let key = c.key
        guard let known = callbacks[key] else { return }
        callbacks[key] = known.uses > 1 ? (known.uri, known.uses - 1) : nil
    }

    private mutating func intern(_ s: String) -> String {
        func use(_ entry: inout (shared: String, uses: Int)) -> String { entry.uses += 1; return entry.shared }
        return use(&strings[ByteKey(s), default: (s, 0)])
    }

    private mutating func release(_ s: String) {
        let key = ByteKey(s)
        guard let known = strings[key] else { return }
        strings[key] = known.uses > 1 ? (known.shared, known.uses - 1) : nil
    }

    /// Distinct callbacks and strings held for sharing (tests: they go with their sessions).
    public var internedCount: Int { callbacks.count + strings.count }

    /// Room for `count` sessions without rehashing (a restore of many at once).
    public mutating func reserveCapacity(_ count: Int) {
        table.reserveCapacity(count)
        index.reserveCapacity(count)
        byState.reserveCapacity(count)
    }

    /// Takes in a changed copy of a session already in the table.
    public mutating func replace(_ session: Session) {
        guard let i = index[session.id] else { return }
        account(table[i], -1)
        table[i] = session
        account(session, +1)
    }

    public mutating func remove(_ id: SessionID) {
        guard let i = index.removeValue(forKey: id) else { return }
        let old = table[i]
        let last = table.removeLast()
        if i < table.count {
            table[i] = last
            index[last.id] = i
        }
        account(old, -1)
        if byState[ByteKey(old.state)] == id { byState[ByteKey(old.state)] = nil }
        release(old.redirect)
        if let a = old.appCallback { release(a) }
        release(old.authorizationOrigin)
        for h in old.resumeHosts { release(h) }
        if let i = old.issuer { release(i) }
    }

    private mutating func account(_ s: Session, _ delta: Int) {
        let unfinished = !s.status.isFinished
        if let owner = s.owner {
            func count(_ entry: inout (sessions: Int, pending: Int)?) {
                let old = entry ?? (0, 0)
                let new = (sessions: old.sessions + delta, pending: old.pending + (unfinished ? delta : 0))
                entry = new.sessions > 0 ? new : nil
            }
            count(&owners[ByteKey(owner)])
        }
        guard unfinished else { return }
        pendingCount += delta
        if let key = s.appCallback?.matchByteKey { _ = Self.count(&appCallbackKeys[key], delta) }
        for c in [s.redirect, s.appCallback] {
            guard let c, c.style == .claimedHTTPS else { continue }
            let (before, after) = Self.count(&httpsKeys[c.matchByteKey], delta)
            if (before == 0) != (after == 0) { claimedVersion += 1 }
        }
    }

    /// Adds `delta` to a count kept in a dictionary entry, which goes at zero
    /// (one access: the entry is changed in place).
    private static func count(_ entry: inout Int?, _ delta: Int) -> (before: Int, after: Int) {
        let before = entry ?? 0
        let after = max(0, before + delta)
        entry = after > 0 ? after : nil
        return (before, after)
    }

    /// The https callbacks unfinished sessions wait on.
    public var claimedCallbacks: ClaimedCallbacks { ClaimedCallbacks(keys: Set(httpsKeys.keys.map(\.string))) }

    public func session(_ id: SessionID) -> Session? { index[id].map { table[$0] } }

    /// The session with exactly this state, compared in constant time once found.
    func session(withState state: String) -> Session? {
        guard let id = byState[ByteKey(state)], let s = session(id), ConstantTime.equals(s.state, state) else { return nil }
        return s
    }

    public func sessions(ownedBy owner: String) -> [Session] {
        table.filter { $0.owner == owner }.sorted { $0.createdAt == $1.createdAt ? $0.id < $1.id : $0.createdAt < $1.createdAt }
    }

    // MARK: Owner actions

    /// The session, if `caller` owns it (threat model D1: others are refused, whatever they ask).
    public func owned(_ id: SessionID, by caller: String) throws(RouterError) -> Session {
        guard let s = session(id) else {
            throw RouterError(.unknownSession, "no session \(id.rawValue) exists; it may have finished and been purged")
        }
        guard s.owner == caller else {
            throw RouterError(.accessDenied, "session \(id.rawValue) belongs to another connection; only the connection that began it (or one that claimed it with its claim_token) may use it")
        }
        return s
    }

    /// The session cancelled by its owner, or unchanged if it had already finished.
    public func cancelling(_ id: SessionID, by caller: String, now: Int64) throws(RouterError) -> Session {
        let s = try owned(id, by: caller)
        guard !s.status.isFinished else { return s }
        return s.finished(.cancelled, failure: SessionFailure(code: .cancelled, message: "the session was cancelled by its owner"), now: now)
    }

    /// Unfinished sessions whose time is up, as expired copies.
    public func expiring(now: Int64) -> [Session] {
        table.filter { !$0.status.isFinished && $0.expiresAt <= now }.map { expired($0, now: now) }
    }

    /// The owner's connection left the bus (threat model D2): a session with a
    /// claim token is parked for its owner to claim again; any other is cancelled.
    public func ownerVanished(_ name: String, now: Int64) -> [Session] {
        guard owners[ByteKey(name)] != nil else { return [] }
        return table.filter { $0.owner == name }.map { s in
            var t = s
            t.owner = nil
            guard s.claimTokenDigest == nil else { return t }
            if !s.status.isFinished {
                t = t.finished(.cancelled, failure: SessionFailure(code: .cancelled, message: "the session's owner left the bus"), now: now)
            }
            return t.wiped()
        }
    }

    /// `Claim(token)`: `tokenDigest` is SHA-256 of what the caller gave.
    public func claiming(_ id: SessionID, tokenDigest: [UInt8], by caller: String) throws(RouterError) -> Session {
        guard let s = session(id) else {
            throw RouterError(.unknownSession, "no session \(id.rawValue) exists; it may have finished and been purged")
        }
        guard let want = s.claimTokenDigest, ConstantTime.equals(want, tokenDigest) else {
            throw RouterError(.accessDenied, "the claim token does not match this session's (or it was begun without one)")
        }
        var t = s
        t.owner = caller
        return t
    }

    /// Finished sessions past both their ttl and the grace period: they can go,
    /// and with them the last trace of their codes.
    public func purgeable(now: Int64) -> [SessionID] {
        table.filter { $0.status.isFinished && now >= deadline(of: $0) }.map(\.id)
    }

    /// The expired copy of one session whose time is up, or nil if it is not due.
    public func expiring(_ id: SessionID, now: Int64) -> Session? {
        guard let s = session(id), !s.status.isFinished, s.expiresAt <= now else { return nil }
        return expired(s, now: now)
    }

    private func expired(_ s: Session, now: Int64) -> Session {
        s.finished(.expired, failure: SessionFailure(code: .expired, message: "the session expired before its callback arrived; begin a new one (its ttl was \(s.expiresAt - s.createdAt) s)"), now: now)
    }

    /// When a session should next be looked at: its expiry while unfinished, its purge time after.
    public func deadline(of s: Session) -> Int64 {
        guard s.status.isFinished else { return s.expiresAt }
        return max(s.expiresAt, (s.finishedAt ?? 0) + limits.gracePeriod)
    }

    /// Whether `key` (a `CallbackURI.matchKey`) is an unfinished session's app callback.
    func isAppCallbackKey(_ key: String) -> Bool { appCallbackKeys[ByteKey(key)] != nil }
}
