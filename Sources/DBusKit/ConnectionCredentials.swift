/// `org.freedesktop.DBus.GetConnectionCredentials(s name) → a{sv}`: what the
/// bus itself knows of a connection (the kernel's word, not the client's).
public struct ConnectionCredentials: BusCall {
    /// What the bus answered; each is nil when the bus did not say.
    public struct Reply: Sendable, Equatable {
        public var processID: UInt32?
        public var unixUserID: UInt32?
    }

    public let proxy = BusProxy.bus
    public let name: String

    public init(of name: String) { self.name = name }

    public static let member: MemberName = "GetConnectionCredentials"

    public var arguments: [DBusValue] { [.string(name)] }

    public static func reply(_ values: [DBusValue]) throws(DBusError) -> Reply {
        guard values.count == 1, let entries = values[0].stringKeyedEntries else { throw .unexpectedReply(member) }
        var reply = Reply()
        for (key, value) in entries {
            guard case .uint32(let n) = value.variantValue ?? value else { continue }
            switch key {
            case "ProcessID": reply.processID = n
            case "UnixUserID": reply.unixUserID = n
            default: break
            }
        }
        return reply
    }
}
