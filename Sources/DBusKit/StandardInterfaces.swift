/// The interfaces every object carries (the D-Bus spec's "Standard Interfaces"),
/// as data: `ObjectServer` answers them itself.
public enum StandardInterfaces {
    typealias A = InterfaceDescription.Argument

    public static let propertiesName: InterfaceName = "org.freedesktop.DBus.Properties"
    public static let introspectableName: InterfaceName = "org.freedesktop.DBus.Introspectable"
    public static let peerName: InterfaceName = "org.freedesktop.DBus.Peer"

    public static let properties = InterfaceDescription(
        name: propertiesName.rawValue,
        methods: [
            .init(name: "Get", input: [A("interface_name", "s"), A("property_name", "s")], output: [A("value", "v")]),
            .init(name: "GetAll", input: [A("interface_name", "s")], output: [A("properties", "a{sv}")]),
            .init(
                name: "Set", input: [A("interface_name", "s"), A("property_name", "s"), A("value", "v")], output: []),
        ],
        signals: [
            .init(
                name: "PropertiesChanged",
                arguments: [
                    A("interface_name", "s"), A("changed_properties", "a{sv}"), A("invalidated_properties", "as"),
                ])
        ],
        properties: [])

    public static let introspectable = InterfaceDescription(
        name: introspectableName.rawValue,
        methods: [.init(name: "Introspect", input: [], output: [A("xml_data", "s")])],
        signals: [], properties: [])

    public static let peer = InterfaceDescription(
        name: peerName.rawValue,
        methods: [
            .init(name: "Ping", input: [], output: []),
            .init(name: "GetMachineId", input: [], output: [A("machine_uuid", "s")]),
        ],
        signals: [], properties: [])

    /// In the order introspection lists them.
    public static let all = [peer, introspectable, properties]
    /// What an inner node (a path with objects below it) answers.
    public static let innerNode = [peer, introspectable]
}
