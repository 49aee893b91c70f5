import DBusKit

/// linkrouter's objects as introspection shows them (docs/dbus-api.md has the same XML; a test keeps them equal).
public enum Introspection {
    /// The manager object's XML.
    public static var manager: String { IntrospectionXML.xml(interfaces: StandardInterfaces.all + [Interfaces.manager], children: ["sessions"]) }

    /// A session object's XML.
    public static var session: String { IntrospectionXML.xml(interfaces: StandardInterfaces.all + [Interfaces.session], children: []) }
}
