internal import CDBus

/// A D-Bus error: a name from the spec's error-name grammar and a message.
/// Errors from libdbus and error replies from peers both arrive as this.
public struct DBusError: Error, Sendable, Equatable, CustomStringConvertible {
    public let name: String
    public let message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    public var description: String { "\(name): \(message)" }

    /// Names from the D-Bus specification that this project answers with.
    public static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
    public static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
    public static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
    public static let unknownInterface = "org.freedesktop.DBus.Error.UnknownInterface"
    public static let unknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
    public static let propertyReadOnly = "org.freedesktop.DBus.Error.PropertyReadOnly"
    public static let noMemory = "org.freedesktop.DBus.Error.NoMemory"
    public static let failed = "org.freedesktop.DBus.Error.Failed"
    public static let noReply = "org.freedesktop.DBus.Error.NoReply"
    public static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
    public static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
    public static let disconnected = "org.freedesktop.DBus.Error.Disconnected"

    static func outOfMemory(_ what: String) -> DBusError {
        DBusError(name: noMemory, message: "out of memory while \(what)")
    }
}

/// libdbus's `DBusError`, owned by one scope and freed exactly once.
struct CError: ~Copyable {
    let raw: UnsafeMutablePointer<CDBus.DBusError>

    init() {
        raw = .allocate(capacity: 1)
        dbus_error_init(raw)
    }

    var isSet: Bool { dbus_error_is_set(raw) != 0 }

    /// The error as a Swift value (`fallback` names a failure libdbus did not describe).
    func swiftError(_ fallback: String) -> DBusError {
        guard isSet else { return DBusError(name: DBusError.failed, message: fallback) }
        let name = raw.pointee.name.map { String(cString: $0) } ?? DBusError.failed
        let message = raw.pointee.message.map { String(cString: $0) } ?? fallback
        return DBusError(name: name, message: message)
    }

    deinit {
        dbus_error_free(raw)
        raw.deallocate()
    }
}
