public import DBusKit
public import LinkRouterCore

/// The names of linkrouter's public D-Bus contract, and its version: the one
/// place each is spelled (the daemon, linkctl, the installed files and the
/// tests all read them here). They never change; new capability arrives as
/// new options, methods or properties.
public enum API {
    public static let busName = BusName(stringLiteral: BusNames.busName)
    public static let managerPath = ObjectPath(stringLiteral: BusNames.managerPath)
    public static let sessionsPath: ObjectPath = "/org/linkrouter/LinkRouter1/sessions"
    public static let managerInterface = InterfaceName(stringLiteral: BusNames.managerInterface)
    public static let sessionInterface: InterfaceName = "org.linkrouter.LinkRouter1.Session"
    public static let errorPrefix = BusNames.errorPrefix
    /// linkrouterd's, linkctl's and the `Version` property's.
    public static let version = "0.1.0"

    public static let propertiesInterface = StandardInterfaces.propertiesName
    public static let introspectableInterface = StandardInterfaces.introspectableName
    public static let peerInterface = StandardInterfaces.peerName

    /// A session's object path: `sessionsPath` and its id (always a valid element).
    public static func path(of id: SessionID) -> ObjectPath {
        ObjectPath(trusted: sessionsPath.rawValue + "/" + id.rawValue)
    }

    /// The session an object path names, if it is one's.
    public static func sessionID(at path: String) -> SessionID? {
        let prefix = sessionsPath.rawValue + "/"
        guard path.hasPrefix(prefix) else { return nil }
        return SessionID(String(path.dropFirst(prefix.count)))
    }
}
