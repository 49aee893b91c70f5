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
}

extension BusCall {
    /// The call's message.
    public func message() throws(DBusError) -> DBusMessage { try proxy.message(Self.member, arguments) }

    /// Makes the call; `completion` hears its reply, read, or the error, on the loop.
    public func call(
        timeoutMilliseconds: Int64 = 25_000, via calls: PendingCalls,
        _ completion: @escaping (Result<Reply, DBusError>) -> Void
    ) {
        proxy.call(Self.member, arguments, timeoutMilliseconds: timeoutMilliseconds, via: calls) { result in
            switch result {
            case .success(let values):
                do throws(DBusError) { completion(.success(try Self.reply(values))) } catch {
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
