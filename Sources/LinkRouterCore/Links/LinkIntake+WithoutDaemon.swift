/// The rule for a link no daemon took, apart from the rest of `LinkIntake`:
/// it reads the claimed-callbacks list, which linkctl's front (Embedded
/// Swift, `Sources/LinkctlFront`) does not compile; the front hands such a
/// link to the full linkctl, which applies this.
extension LinkIntake {
    /// What `linkctl open` does with a link when no daemon answers.
    public enum WithoutDaemon: Sendable, Equatable {
        /// A web link that is no pending callback: straight to the browser,
        /// so browsing never depends on linkrouterd being up.
        case browser
        /// Anything else waits in the inbox for the daemon to start.
        case queue
    }

    /// `linkctl open`'s and `linkctl explain`'s one rule for a link no daemon
    /// took: `pending` is the claimed-callbacks list the daemon published.
    public static func withoutDaemon(_ uri: String, pending: ClaimedCallbacks) -> WithoutDaemon {
        SchemeRule.isWebLink(uri) && !pending.contains(uri: uri) ? .browser : .queue
    }
}
