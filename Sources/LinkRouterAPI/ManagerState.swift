/// What the manager object's `Store` and `Counters` properties read: a
/// snapshot the daemon makes when one is asked for.
public struct ManagerState: Sendable {
    /// Counts since the daemon started (`Counters`), in a fixed order.
    public var counters: [(String, UInt64)]
    /// The session store's path, "" with `--no-store`, or "unavailable: <why>".
    public var store: String

    public init(counters: [(String, UInt64)], store: String) {
        self.counters = counters
        self.store = store
    }
}
