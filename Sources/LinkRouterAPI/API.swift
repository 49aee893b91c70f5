/// The names of linkrouter's public D-Bus contract. They never change;
/// new capability arrives as new options, methods or properties.
public enum API {
    public static let busName = "org.linkrouter.LinkRouter1"
    public static let managerPath = "/org/linkrouter/LinkRouter1"
    public static let sessionsPath = "/org/linkrouter/LinkRouter1/sessions"
    public static let managerInterface = "org.linkrouter.LinkRouter1"
    public static let sessionInterface = "org.linkrouter.LinkRouter1.Session"
    public static let errorPrefix = "org.linkrouter.LinkRouter1.Error."
    public static let version = "0.1.0"

    public static let propertiesInterface = "org.freedesktop.DBus.Properties"
    public static let introspectableInterface = "org.freedesktop.DBus.Introspectable"
    public static let peerInterface = "org.freedesktop.DBus.Peer"
}
