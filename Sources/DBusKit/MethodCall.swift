/// A method call a service handles: the message (kept to reply to it later),
/// who sent it, and its arguments, already checked against the method's signature.
public struct MethodCall {
    public let message: DBusMessage
    public let sender: String
    public let arguments: [DBusValue]

    public init(message: DBusMessage, sender: String, arguments: [DBusValue]) {
        self.message = message
        self.sender = sender
        self.arguments = arguments
    }

    /// The string argument at `index` (the signature was checked, so it is one).
    public func string(_ index: Int) -> String { index < arguments.count ? arguments[index].stringValue ?? "" : "" }

    /// The `u` argument at `index`.
    public func uint32(_ index: Int) -> UInt32 {
        guard index < arguments.count, case .uint32(let v) = arguments[index] else { return 0 }
        return v
    }
}

/// What a method handler produced.
public enum MethodReply {
    /// Reply now with these values.
    case values([DBusValue])
    /// The handler keeps the call and replies later (`Wait`, a deep link handed to an app).
    case deferred
}
