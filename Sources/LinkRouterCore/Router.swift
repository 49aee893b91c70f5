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
    /// Match keys of every session's custom-scheme and https callbacks, finished
    /// ones too: a link on one of them is a login link, never a deep link.
    private var callbackKeys: [ByteKey: Int] = [:]
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

    /// Gives back the room of sessions that are gone. Swift's arrays and
    /// dictionaries keep their capacity when they shrink, so a burst of
    /// 10,000 sessions would otherwise hold its high-water memory for the
    /// daemon's life (the soak, issue 13 §5). Cheap when nothing is sparse.
    public mutating func compact() {
        guard table.capacity > 64, table.count * 4 < table.capacity else { return }
        var fresh: [Session] = []
        fresh.reserveCapacity(table.count)
        fresh.append(contentsOf: table)
        table = fresh
        index = Self.compacted(index)
        byState = Self.compacted(byState)
        owners = Self.compacted(owners)
        appCallbackKeys = Self.compacted(appCallbackKeys)
        callbackKeys = Self.compacted(callbackKeys)
        httpsKeys = Self.compacted(httpsKeys)
        callbacks = Self.compacted(callbacks)
        strings = Self.compacted(strings)
    }

    private static func compacted<K: Hashable, V>(_ d: [K: V]) -> [K: V] {
        var out = [K: V](minimumCapacity: d.count)
        for (k, v) in d { out[k] = v }
        return out
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

    /// Takes in what a transition changed (after the executor wrote it).
    public mutating func apply(_ changes: [SessionChange]) {
        for change in changes {
            switch change {
            case .insert(let s): insert(s)
            case .update(let s): replace(s)
            case .remove(let id): remove(id)
            }
        }
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
        if s.redirect.style != .loopback { _ = Self.count(&callbackKeys[s.redirect.matchByteKey], delta) }
        if let a = s.appCallback { _ = Self.count(&callbackKeys[a.matchByteKey], delta) }
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

    /// Whether `name` owns any session, finished ones too (one lookup: most clients that leave own none).
    func ownsSessions(_ name: String) -> Bool { owners[ByteKey(name)] != nil }

    public func sessions(ownedBy owner: String) -> [Session] {
        table.filter { $0.owner == owner }.sorted { $0.createdAt == $1.createdAt ? $0.id < $1.id : $0.createdAt < $1.createdAt }
    }

    /// When a session should next be looked at: its expiry while unfinished;
    /// the release of a result nobody acknowledged (`gracePeriod` after the
    /// callback); its purge (after its ttl and the grace period).
    public func deadline(of s: Session) -> Int64 {
        guard s.status.isFinished else { return s.expiresAt }
        let graceEnds = (s.finishedAt ?? 0) + limits.gracePeriod
        return s.holdsResult ? graceEnds : max(s.expiresAt, graceEnds)
    }

    /// Whether `key` is the callback of any session the router holds.
    func isCallbackKey(_ key: String) -> Bool { callbackKeys[ByteKey(key)] != nil }

    /// Whether `key` (a `CallbackURI.matchKey`) is an unfinished session's app callback.
    func isAppCallbackKey(_ key: String) -> Bool { appCallbackKeys[ByteKey(key)] != nil }
}
