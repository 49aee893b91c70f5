/// The table of sessions and every rule that decides what a link does to one.
///
/// Pure: no clock, no randomness, no I/O. The daemon passes `now` and the
/// secrets in, persists what a transition changes, and only then takes it in
/// (`apply`). Besides the sessions it tracks the operations under way
/// (`PendingOperation`) and the apps behind the callers it has identified.
public struct Router: Sendable {
    public let limits: Limits
    /// The sessions, densely (a dictionary of 249-byte values wastes a
    /// quarter of its slots), with an index by id.
    private(set) var table: [Session] = []
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
    /// The operations under way, and what each is for.
    public private(set) var operations: [OperationID: PendingOperation] = [:]
    /// The daemon's executable was replaced (an upgrade): it stops, to be
    /// started again on the new one, once stopping cuts no work short.
    public private(set) var restartWanted = false
    /// The next operation's number (operation ids are never reused in a daemon's life).
    private var nextOperation: UInt64 = 1
    /// The app behind each bus name found out so far (until the name leaves).
    public private(set) var callers: [String: CallerApp] = [:]
    /// What is known of each account's tokens (memory: a cache of the keyring).
    public private(set) var accountTokens: [AccountKey: AccountTokens] = [:]
    /// The held `Wait`s of each session, in the order they came.
    private var waitsBySession: [SessionID: [OperationID]] = [:]

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
        operations = Self.compacted(operations)
        waitsBySession = Self.compacted(waitsBySession)
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
        try admit(owner: plan.owner.name)
        if let state = plan.adoptedState, byState[ByteKey(state)] != nil {
            throw .invalid(
                "the adopted state is already in use by another session; a backend must make a fresh state for every login"
            )
        }
    }

    /// The limits on unfinished sessions, for one more of `owner`'s.
    func admit(owner: String) throws(RouterError) {
        if pendingCount >= limits.maxPendingTotal {
            throw RouterError(
                .limitsExceeded,
                "the daemon already holds \(pendingCount) unfinished sessions, its limit; finish or cancel some first")
        }
        if (owners[ByteKey(owner)]?.pending ?? 0) >= limits.maxPendingPerOwner {
            throw RouterError(
                .limitsExceeded,
                "this connection already holds \(limits.maxPendingPerOwner) unfinished sessions, the per-client limit; finish or cancel some first"
            )
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
        session.flow.modifyCode { c in
            c.redirect = intern(c.redirect)
            if let a = c.appCallback { c.appCallback = intern(a) }
            c.authorizationOrigin = intern(c.authorizationOrigin)
            if !c.resumeHosts.isEmpty { c.resumeHosts = c.resumeHosts.map { intern($0) } }
            if let i = c.issuer { c.issuer = intern(i) }
        }
        if session.isCodeFlow {
            let clash = byState.updateValue(session.id, forKey: ByteKey(session.code.state))
            precondition(clash == nil, "insert of a state already in the table")
        }
        let previous = index.updateValue(table.count, forKey: session.id)
        precondition(previous == nil, "insert of a session already in the table")
        account(session, +1)
        table.append(session)
    }

    // One dictionary access each (the entry is counted and read in place).
    private mutating func intern(_ c: CallbackURI) -> CallbackURI {
        func use(_ entry: inout (uri: CallbackURI, uses: Int)) -> CallbackURI {
            entry.uses += 1
            return entry.uri
        }
        return use(&callbacks[c.key, default: (c, 0)])
    }

    private mutating func release(_ c: CallbackURI) {
        let key = c.key
        guard let known = callbacks[key] else { return }
        callbacks[key] = known.uses > 1 ? (known.uri, known.uses - 1) : nil
    }

    private mutating func intern(_ s: String) -> String {
        func use(_ entry: inout (shared: String, uses: Int)) -> String {
            entry.uses += 1
            return entry.shared
        }
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
        // A restore brings thousands at once: grow the tables once, not by doubling.
        if changes.count > 64 {
            let adding = changes.count {
                if case .update = $0 { false } else if case .remove = $0 { false } else { true }
            }
            if adding > 64 { reserveCapacity(table.count + adding) }
        }
        for change in changes {
            switch change {
            case .insert(let s), .restore(let s): insert(s)
            case .update(let s): replace(s)
            case .remove(let id): remove(id)
            }
        }
    }

    /// Takes in what a transition changed of the core's own tables.
    public mutating func apply(core changes: [CoreChange]) {
        for change in changes {
            switch change {
            case .track(let id, let pending):
                operations[id] = pending
                nextOperation = max(nextOperation, id.value + 1)
                if case .wait(let session, _, _, _) = pending { waitsBySession[session, default: []].append(id) }
            case .finish(let id):
                if case .wait(let session, _, _, _)? = operations.removeValue(forKey: id) {
                    let left = (waitsBySession[session] ?? []).filter { $0 != id }
                    waitsBySession[session] = left.isEmpty ? nil : left
                }
            case .caller(let name, let app):
                callers[name] = app
            case .account(let key, let state):
                accountTokens[key] = state
            case .restartWhenIdle:
                restartWanted = true
            }
        }
    }

    /// Operation ids for one transition: the next free ones, in order.
    struct OperationIDs {
        private var next: UInt64
        init(from next: UInt64) { self.next = next }
        mutating func take() -> OperationID {
            defer { next += 1 }
            return OperationID(next)
        }
    }

    var newOperationIDs: OperationIDs { OperationIDs(from: nextOperation) }

    /// The held `Wait`s of a session.
    func waits(on id: SessionID) -> [OperationID] { waitsBySession[id] ?? [] }

    public mutating func remove(_ id: SessionID) {
        guard let i = index.removeValue(forKey: id) else { return }
        let old = table[i]
        let last = table.removeLast()
        if i < table.count {
            table[i] = last
            index[last.id] = i
        }
        account(old, -1)
        switch old.flow {
        case .code(let c):
            if byState[ByteKey(c.state)] == id { byState[ByteKey(c.state)] = nil }
            release(c.redirect)
            if let a = c.appCallback { release(a) }
            release(c.authorizationOrigin)
            for h in c.resumeHosts { release(h) }
            if let i = c.issuer { release(i) }
        case .device:
            break
        }
    }

    private mutating func account(_ s: Session, _ delta: Int) {
        let code = s.isCodeFlow
        // `s.code.…` read in place: a `let` of the whole flow copied (and retained) every field, twice a Route.
        if code && s.code.redirect.style != .loopback {
            _ = Self.count(&callbackKeys[s.code.redirect.matchByteKey], delta)
        }
        if code, let a = s.code.appCallback { _ = Self.count(&callbackKeys[a.matchByteKey], delta) }
        let unfinished = !s.status.isFinished
        if let owner = s.owner?.name {
            func count(_ entry: inout (sessions: Int, pending: Int)?) {
                let old = entry ?? (0, 0)
                let new = (sessions: old.sessions + delta, pending: old.pending + (unfinished ? delta : 0))
                entry = new.sessions > 0 ? new : nil
            }
            count(&owners[ByteKey(owner)])
        }
        guard unfinished else { return }
        pendingCount += delta
        guard code else { return }
        if let key = s.code.appCallback?.matchByteKey { _ = Self.count(&appCallbackKeys[key], delta) }
        for callback in [s.code.redirect, s.code.appCallback] {
            guard let callback, callback.style == .claimedHTTPS else { continue }
            let (before, after) = Self.count(&httpsKeys[callback.matchByteKey], delta)
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
        guard let id = byState[ByteKey(state)], let s = session(id), ConstantTime.equals(s.code.state, state) else {
            return nil
        }
        return s
    }

    /// Whether `name` owns any session, finished ones too (one lookup: most clients that leave own none).
    func ownsSessions(_ name: String) -> Bool { owners[ByteKey(name)] != nil }

    public func sessions(ownedBy owner: String) -> [Session] {
        table.filter { $0.owner?.name == owner }.sorted {
            $0.createdAt == $1.createdAt ? $0.id < $1.id : $0.createdAt < $1.createdAt
        }
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
