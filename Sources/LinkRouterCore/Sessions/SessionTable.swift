/// The sessions, and every index a link or a caller is looked up by: the id,
/// the state, the owner, the callbacks. Kept by `Router`; changed only by
/// `apply` (what a transition changed, after the executor wrote it).
public struct SessionTable: Sendable {
    /// The sessions, densely (a dictionary of 249-byte values wastes a
    /// quarter of its slots), with an index by id.
    private var table: [Session] = []
    private var index: [SessionID: Int] = [:]
    /// Every session by its state, finished ones too, so a replay is known as one.
    private var byState: [ByteKey: SessionID] = [:]
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
    /// The callbacks and strings sessions share.
    private var interner = Interner()

    public init() {}

    /// Every session, in no particular order.
    public var all: [Session] { table }

    public var count: Int { table.count }

    /// The indices of the table, for a walk that reads each session in place.
    var indices: Range<Int> { table.indices }

    subscript(position: Int) -> Session { _read { yield table[position] } }

    public func session(_ id: SessionID) -> Session? { index[id].map { table[$0] } }

    /// The session with exactly this state, compared in constant time once found.
    func session(withState state: String) -> Session? {
        guard let id = byState[ByteKey(state)], let s = session(id), let own = s.login.state,
            ConstantTime.equals(own, state)
        else { return nil }
        return s
    }

    /// The session whose state is exactly `state`, by the index alone (a malformed link's raw state).
    func id(ofState state: String) -> SessionID? { byState[ByteKey(state)] }

    /// Whether a freshly drawn state or id collides with one in the table.
    public func isInUse(state: String, id: SessionID) -> Bool {
        byState[ByteKey(state)] != nil || index[id] != nil
    }

    /// Whether `state` is any session's (an adopted one must not be: session fixation, threat model D5).
    func hasState(_ state: String) -> Bool { byState[ByteKey(state)] != nil }

    /// How many unfinished sessions `owner` holds.
    func pending(ownedBy owner: String) -> Int { owners[ByteKey(owner)]?.pending ?? 0 }

    /// Whether `name` owns any session, finished ones too (one lookup: most clients that leave own none).
    func ownsSessions(_ name: String) -> Bool { owners[ByteKey(name)] != nil }

    public func sessions(ownedBy owner: String) -> [Session] {
        table.filter { $0.owner?.name == owner }.sorted {
            $0.createdAt == $1.createdAt ? $0.id < $1.id : $0.createdAt < $1.createdAt
        }
    }

    /// Whether `key` is the callback of any session the table holds.
    func isCallbackKey(_ key: String) -> Bool { callbackKeys[ByteKey(key)] != nil }

    /// Whether `key` (a `CallbackURI.matchKey`) is an unfinished session's app callback.
    func isAppCallbackKey(_ key: String) -> Bool { appCallbackKeys[ByteKey(key)] != nil }

    /// The https callbacks unfinished sessions wait on.
    public var claimedCallbacks: ClaimedCallbacks { ClaimedCallbacks(keys: Set(httpsKeys.keys.map(\.string))) }

    /// Distinct callbacks and strings held for sharing (tests: they go with their sessions).
    public var internedCount: Int { interner.count }

    // MARK: Changes

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
            case .update(let s), .handedOff(let s): replace(s)
            case .remove(let id): remove(id)
            }
        }
    }

    public mutating func insert(_ new: consuming Session) {
        var session = new
        session.login.share(&interner)
        if let state = session.login.state {
            let clash = byState.updateValue(session.id, forKey: ByteKey(state))
            precondition(clash == nil, "insert of a state already in the table")
        }
        let previous = index.updateValue(table.count, forKey: session.id)
        precondition(previous == nil, "insert of a session already in the table")
        account(session, +1)
        table.append(session)
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
        if let state = old.login.state, byState[ByteKey(state)] == id { byState[ByteKey(state)] = nil }
        old.login.release(&interner)
    }

    /// Room for `count` sessions without rehashing (a restore of many at once).
    public mutating func reserveCapacity(_ count: Int) {
        table.reserveCapacity(count)
        index.reserveCapacity(count)
        byState.reserveCapacity(count)
    }

    /// How many sessions the table has room for without growing (the soak's concern: room kept after a burst).
    public var room: Int { table.capacity }

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
        index = index.compacted()
        byState = byState.compacted()
        owners = owners.compacted()
        appCallbackKeys = appCallbackKeys.compacted()
        callbackKeys = callbackKeys.compacted()
        httpsKeys = httpsKeys.compacted()
        interner.compact()
    }

    private mutating func account(_ s: Session, _ delta: Int) {
        // Read in place: a `let` of the whole login copied (and retained) every field, twice a Route.
        if let r = s.login.redirect, r.style != .loopback { _ = Self.count(&callbackKeys[r.matchByteKey], delta) }
        if let a = s.login.appCallback { _ = Self.count(&callbackKeys[a.matchByteKey], delta) }
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
        if let key = s.login.appCallback?.matchByteKey { _ = Self.count(&appCallbackKeys[key], delta) }
        for callback in [s.login.redirect, s.login.appCallback] {
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

    // MARK: Owners leaving

    /// The sessions `name` owned, as they are once it has gone.
    func left(by name: String, now: Int64) -> [Session] {
        guard ownsSessions(name) else { return [] }
        return all.filter { $0.ownerName == name }.map { s in
            var t = s
            t.owner = nil
            guard s.claimTokenDigest == nil else { return t }
            if !s.status.isFinished {
                t = t.finished(
                    .cancelled, failure: SessionFailure(code: .cancelled, message: "the session's owner left the bus"),
                    now: now)
            }
            return t.releasingResult()
        }
    }
}
