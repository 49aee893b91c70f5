/// How an event changes the table of sessions. The executor writes the
/// changes to the store first and takes them in only when that worked.
public enum SessionChange: Sendable, Equatable {
    case insert(Session)
    case update(Session)
    case remove(SessionID)

    public var id: SessionID {
        switch self {
        case .insert(let s), .update(let s): return s.id
        case .remove(let id): return id
        }
    }
}
