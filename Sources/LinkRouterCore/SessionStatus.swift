/// Where a session is in its life; the `Status` property on the bus.
public enum SessionStatus: String, Sendable, CaseIterable {
    /// Waiting for its callback.
    case pending
    /// The app-to-app step came back (`app_callback_uri`); waiting for the redirect.
    case resumed
    case completed
    case failed
    case expired
    case cancelled

    /// Finished sessions take no more callbacks: a state completes at most once.
    public var isFinished: Bool {
        switch self {
        case .pending, .resumed: return false
        case .completed, .failed, .expired, .cancelled: return true
        }
    }
}
