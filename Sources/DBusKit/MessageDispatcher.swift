import SystemKit

/// Where each message a service receives goes: a method call to the object
/// server, whose answer it sends; a method return or an error to the
/// pending calls; a signal to the subscriptions; the bus's own
/// `Disconnected` to `onDisconnect`. It lives here, not in the service, so
/// the service's bus component is entered only to send: a call that ends in
/// an answer of the service's does not re-enter the file that received it.
public final class MessageDispatcher {
    public let connection: DBusConnection
    public let objects: ObjectServer
    public let calls: PendingCalls
    public let signals: SignalSubscriptions
    /// What runs when the connection to the bus is lost.
    public var onDisconnect: () -> Void = {}

    public init(connection: DBusConnection, objects: ObjectServer, calls: PendingCalls, signals: SignalSubscriptions) {
        self.connection = connection
        self.objects = objects
        self.calls = calls
        self.signals = signals
    }

    /// Starts taking messages on `loop`.
    public func attach(to loop: EventLoop) {
        connection.setHandler { [unowned self] message in self.handle(message) }
        connection.attach(to: loop)
    }

    func handle(_ message: DBusMessage) -> DBusConnection.Handling {
        switch message.kind {
        case .methodCall:
            do {
                switch try objects.dispatch(message) {
                case .values(let values): connection.reply(to: message, values: values)
                case .deferred: break
                }
            } catch {
                connection.reply(to: message, error: error)
            }
            return .handled
        case .methodReturn, .error:
            calls.handle(reply: message)
            return .notHandled
        case .signal:
            if message.isSignal(interface: "org.freedesktop.DBus.Local", member: "Disconnected") {
                onDisconnect()
            } else {
                signals.dispatch(message)
            }
            return .notHandled
        default:
            return .notHandled
        }
    }
}
