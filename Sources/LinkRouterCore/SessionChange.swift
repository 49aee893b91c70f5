/// How an event changes the table of sessions. The executor writes the
/// changes to the store first and takes them in only when that worked.
public enum SessionChange: Sendable, Equatable {
    case insert(Session)
    case update(Session)
    case remove(SessionID)
    /// A session read back from the store at start: taken in, not written.
    case restore(Session)

    public var id: SessionID {
        switch self {
        case .insert(let s), .update(let s), .restore(let s): return s.id
        case .remove(let id): return id
        }
    }

    /// Whether the store must be told (a restored row is already there).
    public var isWritten: Bool {
        if case .restore = self { return false }
        return true
    }
}
