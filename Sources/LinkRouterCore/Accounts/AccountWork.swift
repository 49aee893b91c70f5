/// Which of an account's own pieces of work an operation is (`Running.account`): the account's keeper
/// (`AccountKeeper`) holds the state of each, as a session holds its login's, so `Router.running` needs only the
/// account's key and the kind of work to hand a result to the right place.
public enum AccountWork: Sendable, Equatable, CustomStringConvertible {
    /// The account's one flight (`AccountKeeper.flight`): a keyring read, a refresh, a write.
    case flight
    /// The keyring's item deleted after a sign-in ended: nobody waits on it, and the next flight need not either.
    case forgetting
    /// The timer of its refresh ahead of need (`AccountKeeper.refreshTimer`).
    case refreshTimer
    /// Its notice to the person (`AccountKeeper.notice`).
    case notice

    public var description: String {
        switch self {
        case .flight: "token flight"
        case .forgetting: "forgetting"
        case .refreshTimer: "refresh ahead"
        case .notice: "notice"
        }
    }
}
