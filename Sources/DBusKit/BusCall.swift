/// One method call to another service, typed (zbus's proxy methods): where
/// it goes, its arguments as Swift values, and what its reply means. The
/// daemon makes calls of these types only; the member name, the signature's
/// order and the reading of the reply are said once, in the call's type.
public protocol BusCall: Sendable {
    associatedtype Reply: Sendable
    /// The remote object and interface.
    var proxy: BusProxy { get }
    static var member: MemberName { get }
    /// The arguments, in the method's signature.
    var arguments: [DBusValue] { get }
    /// The reply's arguments, read; a reply of another shape is an error.
    static func reply(_ values: [DBusValue]) throws(DBusError) -> Reply
    /// The reply read from the whole message, for a call whose answer depends on who sent it (`Notify`: the server
    /// that showed the notification). By default, its arguments (`reply(_:)`).
    static func reply(message: DBusMessage) throws(DBusError) -> Reply
}

extension BusCall {
    public static func reply(message: DBusMessage) throws(DBusError) -> Reply { try reply(try message.arguments()) }
}

extension BusCall {
    /// The call's message.
    public func message() throws(DBusError) -> DBusMessage { try proxy.message(Self.member, arguments) }

    /// Makes the call; `completion` hears its reply, read, or the error, on the loop.
    public func call(
        timeoutMilliseconds: Int64 = 25_000, via calls: PendingCalls,
        _ completion: @escaping (Result<Reply, DBusError>) -> Void
    ) {
        let m: DBusMessage
        do { m = try message() } catch {
            calls.loop.schedule(afterMilliseconds: 0) { completion(.failure(error)) }
            return
        }
        calls.call(m, timeoutMilliseconds: timeoutMilliseconds) { result in
            switch result {
            case .success(let reply):
                do throws(DBusError) { completion(.success(try Self.reply(message: reply))) } catch {
                    completion(.failure(error))
                }
            case .failure(let e):
                completion(.failure(e))
            }
        }
    }

    /// Sends the call without asking for a reply.
    public func send(on connection: DBusConnection) throws(DBusError) {
        try proxy.send(Self.member, arguments, on: connection)
    }
}

/// A reply with nothing in it worth reading.
public struct NoReply: Sendable {}

extension DBusError {
    /// A reply of another shape than the method's.
    static func unexpectedReply(_ member: MemberName) -> DBusError {
        DBusError(name: DBusError.failed, message: "\(member.rawValue) answered with values of another shape")
    }
}
