internal import CDBus

/// One D-Bus message. Owns a reference to libdbus's `DBusMessage` and drops
/// it in `deinit`, so no code path has to remember to unref.
public final class DBusMessage {
    public enum Kind: Sendable, Equatable { case methodCall, methodReturn, error, signal, invalid }

    let raw: OpaquePointer

    /// Takes over a reference the caller already holds.
    init(adopting raw: OpaquePointer) { self.raw = raw }

    /// Adds a reference of our own.
    init(retaining raw: OpaquePointer) {
        self.raw = raw
        dbus_message_ref(raw)
    }

    deinit { dbus_message_unref(raw) }

    public static func methodCall(
        destination: BusName?, path: ObjectPath, interface: InterfaceName?,
        member: MemberName
    ) throws(DBusError) -> DBusMessage {
        guard
            let m = dbus_message_new_method_call(
                destination?.rawValue, path.rawValue, interface?.rawValue, member.rawValue)
        else {
            throw DBusError.outOfMemory("creating a method call")
        }
        return DBusMessage(adopting: m)
    }

    /// A method call to names known valid (typed, or literals checked when
    /// written); libdbus fails only without memory, which traps.
    public static func methodCall(
        _ destination: BusName?, _ path: ObjectPath, _ interface: InterfaceName?, _ member: MemberName
    ) -> DBusMessage {
        guard
            let m = dbus_message_new_method_call(
                destination?.rawValue, path.rawValue, interface?.rawValue, member.rawValue)
        else {
            fatalError("out of memory creating a method call")
        }
        return DBusMessage(adopting: m)
    }

    public static func signal(path: ObjectPath, interface: InterfaceName, member: MemberName) throws(DBusError)
        -> DBusMessage
    {
        guard let m = dbus_message_new_signal(path.rawValue, interface.rawValue, member.rawValue) else {
            throw DBusError.outOfMemory("creating a signal")
        }
        return DBusMessage(adopting: m)
    }

    /// The reply to this method call.
    public func makeReturn() throws(DBusError) -> DBusMessage {
        guard let m = dbus_message_new_method_return(raw) else { throw DBusError.outOfMemory("creating a reply") }
        return DBusMessage(adopting: m)
    }

    /// An error reply; `name` must follow the error-name grammar, and the
    /// message is cleaned of NULs so libdbus is never handed one.
    public func makeError(name: String, message: String) throws(DBusError) -> DBusMessage {
        guard InterfaceName.isValid(name) else {
            throw DBusError(name: DBusError.invalidArgs, message: "invalid error name \(name)")
        }
        let clean = String(decoding: message.utf8.filter { $0 != 0 }, as: UTF8.self)
        guard let m = dbus_message_new_error(raw, name, clean) else {
            throw DBusError.outOfMemory("creating an error reply")
        }
        return DBusMessage(adopting: m)
    }

    public var kind: Kind {
        switch Int(dbus_message_get_type(raw)) {
        case Int(LR_DBUS_MESSAGE_TYPE_METHOD_CALL): return .methodCall
        case Int(LR_DBUS_MESSAGE_TYPE_METHOD_RETURN): return .methodReturn
        case Int(LR_DBUS_MESSAGE_TYPE_ERROR): return .error
        case Int(LR_DBUS_MESSAGE_TYPE_SIGNAL): return .signal
        default: return .invalid
        }
    }

    private static func string(_ p: UnsafePointer<CChar>?) -> String? { p.map { String(cString: $0) } }

    public var sender: String? { Self.string(dbus_message_get_sender(raw)) }
    public var destination: String? { Self.string(dbus_message_get_destination(raw)) }
    public var path: String? { Self.string(dbus_message_get_path(raw)) }
    public var interface: String? { Self.string(dbus_message_get_interface(raw)) }
    public var member: String? { Self.string(dbus_message_get_member(raw)) }
    public var errorName: String? { Self.string(dbus_message_get_error_name(raw)) }
    public var signature: String { Self.string(dbus_message_get_signature(raw)) ?? "" }
    /// Set by libdbus when sent; set by hand only to marshal a message that was never sent.
    public var serial: UInt32 {
        get { dbus_message_get_serial(raw) }
        set { dbus_message_set_serial(raw, newValue) }
    }
    public var replySerial: UInt32 { dbus_message_get_reply_serial(raw) }

    /// The caller asked for no reply: the handler acts but sends nothing back.
    public var noReplyExpected: Bool {
        get { dbus_message_get_no_reply(raw) != 0 }
        set { dbus_message_set_no_reply(raw, newValue ? 1 : 0) }
    }

    /// A copy with a fresh serial, for sending one prepared message many times
    /// (libdbus re-marshals the header for every field set on a new one).
    public func copy() throws(DBusError) -> DBusMessage {
        guard let m = dbus_message_copy(raw) else { throw DBusError.outOfMemory("copying a message") }
        return DBusMessage(adopting: m)
    }

    public func setPath(_ path: ObjectPath) throws(DBusError) {
        guard dbus_message_set_path(raw, path.rawValue) != 0 else { throw DBusError.outOfMemory("setting a path") }
    }

    public func setDestination(_ name: BusName) throws(DBusError) {
        guard dbus_message_set_destination(raw, name.rawValue) != 0 else {
            throw DBusError.outOfMemory("setting a destination")
        }
    }

    public func isSignal(interface: String, member: String) -> Bool {
        dbus_message_is_signal(raw, interface, member) != 0
    }

    /// For an error reply: the error it carries.
    public var error: DBusError? {
        guard kind == .error else { return nil }
        let text: String
        if case .string(let s)? = try? arguments().first { text = s } else { text = "" }
        return DBusError(name: errorName ?? DBusError.failed, message: text)
    }

    /// The message in wire format (for the fuzzers' corpus).
    public func marshal() throws(DBusError) -> [UInt8] {
        var buffer: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        guard dbus_message_marshal(raw, &buffer, &length) != 0, let buffer else {
            throw DBusError.outOfMemory("marshalling a message")
        }
        defer { dbus_free(buffer) }
        return buffer.withMemoryRebound(to: UInt8.self, capacity: Int(length)) {
            Array(UnsafeBufferPointer(start: $0, count: Int(length)))
        }
    }

    /// Reads a message from wire format; libdbus validates every byte of it.
    public static func demarshal(_ bytes: [UInt8]) throws(DBusError) -> DBusMessage {
        let error = CError()
        let m: OpaquePointer? = bytes.withUnsafeBufferPointer { buf in
            buf.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buf.count) {
                dbus_message_demarshal($0, Int32(buf.count), error.raw)
            }
        }
        guard let m else { throw error.swiftError("invalid message") }
        return DBusMessage(adopting: m)
    }
}
