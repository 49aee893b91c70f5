/// How an event changes the table of sessions. The executor writes the
/// changes to the store first and takes them in only when that worked.
public enum SessionChange: Sendable, Equatable {
    case insert(Session)
    case update(Session)
    case remove(SessionID)
    /// A session read back from the store at start: taken in, not written.
    case restore(Session)
    /// The click's token went with a `Wait`'s answer (`Session.handedOff`): taken in, not written (the store never
    /// keeps the token).
    case handedOff(Session)

    public var id: SessionID {
        switch self {
        case .insert(let s), .update(let s), .restore(let s), .handedOff(let s): return s.id
        case .remove(let id): return id
        }
    }

    /// Whether the store must be told (a restored row is already there; a token handed off was never written).
    public var isWritten: Bool {
        switch self {
        case .insert, .update, .remove: true
        case .restore, .handedOff: false
        }
    }
}
