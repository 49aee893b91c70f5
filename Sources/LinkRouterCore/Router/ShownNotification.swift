/// A notification the server took: the id it gave, and the unique bus name of
/// the server that gave it. Only that server's `ActionInvoked` and
/// `NotificationClosed` about that id are the person's answers: another
/// program may own `org.freedesktop.Notifications` later (and count ids
/// from 1 again), and any client can emit a signal of that name (issue 44).
/// Withdrawing it (`Effect.closeNotification`) goes to that server only.
public struct ShownNotification: Sendable, Equatable, Hashable {
    public let id: UInt32
    /// The server's unique name when it answered `Notify` (`:1.12`).
    public let server: String

    public init(id: UInt32, server: String) {
        self.id = id
        self.server = server
    }

    /// Whether a signal from `sender` about `id` is about this notification.
    public func isAnswered(id: UInt32, by sender: String) -> Bool { self.id == id && server == sender }
}
