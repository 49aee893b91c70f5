/// One remote object's interface, to call methods on (zbus's `Proxy`): the
/// destination, path and interface are said once, each call is a member,
/// its arguments and a deadline, and its answer arrives through `PendingCalls`.
public struct BusProxy: Sendable {
    public let destination: BusName
    public let path: ObjectPath
    public let interface: InterfaceName

    public init(destination: BusName, path: ObjectPath, interface: InterfaceName) {
        self.destination = destination
        self.path = path
        self.interface = interface
    }

    /// The bus daemon itself (`org.freedesktop.DBus`).
    public static let bus = BusProxy(
        destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus")

    /// The message for `member(arguments)`.
    public func message(_ member: MemberName, _ arguments: [DBusValue]) throws(DBusError) -> DBusMessage {
        let m = DBusMessage.methodCall(destination, path, interface, member)
        try m.append(contentsOf: arguments)
        return m
    }

    /// Calls `member`; `completion` gets the reply's arguments or the error, on the loop.
    public func call(
        _ member: MemberName, _ arguments: [DBusValue] = [], timeoutMilliseconds: Int64 = 25_000,
        via calls: PendingCalls,
        _ completion: @escaping (Result<[DBusValue], DBusError>) -> Void
    ) {
        let m: DBusMessage
        do { m = try message(member, arguments) } catch {
            calls.loop.schedule(afterMilliseconds: 0) { completion(.failure(error)) }
            return
        }
        calls.call(m, timeoutMilliseconds: timeoutMilliseconds) { result in
            switch result {
            case .success(let reply):
                do throws(DBusError) { completion(.success(try reply.arguments())) } catch {
                    completion(.failure(error))
                }
            case .failure(let e):
                completion(.failure(e))
            }
        }
    }

    /// Sends `member` without asking for a reply (a notification, say).
    public func send(_ member: MemberName, _ arguments: [DBusValue], on connection: DBusConnection) throws(DBusError) {
        let m = try message(member, arguments)
        m.noReplyExpected = true
        try connection.send(m)
    }
}

extension DBusConnection {
    /// Whether `name` has an owner on this bus now (`NameHasOwner`, a blocking
    /// call); false when the bus cannot answer. For tools and tests that wait
    /// for a service to come up; the daemon itself asks the bus asynchronously.
    public func nameHasOwner(_ name: String) -> Bool {
        guard let m = try? BusProxy.bus.message("NameHasOwner", [.string(name)]),
            case .boolean(let owned)? = try? callArguments(m).first
        else { return false }
        return owned
    }
}
