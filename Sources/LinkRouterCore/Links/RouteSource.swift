/// Where a link came in: it decides what a non-callback becomes.
public enum RouteSource: Sendable, Equatable {
    /// `Route` (from `linkctl open`, the desktop handler): web links that are
    /// not callbacks go on to the browser.
    case link
    /// The loopback listener of one session: only that session's callback is accepted.
    case loopback(SessionID)
}
