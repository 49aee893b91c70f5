/// Where a session is in its life; the `Status` property on the bus.
public enum SessionStatus: String, Sendable, CaseIterable {
    /// Waiting for its callback.
    case pending
    /// The app-to-app step came back (`app_callback_uri`); waiting for the redirect.
    case resumed
    /// The code arrived and the daemon is exchanging it for tokens (`exchange`).
    case exchanging
    case completed
    case failed
    case expired
    case cancelled

    /// Finished sessions take no more callbacks: a state completes at most once.
    public var isFinished: Bool {
        switch self {
        case .pending, .resumed, .exchanging: return false
        case .completed, .failed, .expired, .cancelled: return true
        }
    }
}
