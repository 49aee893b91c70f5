/// linkrouter's interfaces and the standard ones every object carries.
public enum Interfaces {
    typealias A = InterfaceDescription.Argument

    public static let manager = InterfaceDescription(
        name: API.managerInterface,
        methods: [
            .init(name: "BeginSession", input: [A("options", "a{sv}")], output: [A("session", "o"), A("authorize_url", "s")]),
            .init(name: "Route", input: [A("uri", "s")], output: [A("outcome", "s")]),
            .init(name: "ListSessions", input: [], output: [A("sessions", "a(oss)")]),
            .init(name: "ListAllSessions", input: [], output: [A("sessions", "a(osss)")]),
            .init(name: "Explain", input: [A("uri", "s")], output: [A("outcome", "s"), A("reason", "s")]),
        ],
        signals: [],
        properties: [
            .init(name: "Version", type: "s", changes: .const),
        ])

    public static let session = InterfaceDescription(
        name: API.sessionInterface,
        methods: [
            .init(name: "Wait", input: [A("timeout_ms", "u")], output: [A("result", "a{sv}")]),
            .init(name: "Cancel", input: [], output: []),
            .init(name: "Claim", input: [A("token", "s")], output: []),
        ],
        signals: [
            .init(name: "ResumeRequested", arguments: [A("resume_uri", "s")]),
        ],
        properties: [
            .init(name: "Status", type: "s", changes: .emits),
            .init(name: "RedirectUri", type: "s", changes: .const),
            .init(name: "AppCallbackUri", type: "s", changes: .const),
            .init(name: "ExpiresAt", type: "t", changes: .const),
            .init(name: "Browser", type: "s", changes: .const),
        ])

    public static let properties = InterfaceDescription(
        name: API.propertiesInterface,
        methods: [
            .init(name: "Get", input: [A("interface_name", "s"), A("property_name", "s")], output: [A("value", "v")]),
            .init(name: "GetAll", input: [A("interface_name", "s")], output: [A("properties", "a{sv}")]),
            .init(name: "Set", input: [A("interface_name", "s"), A("property_name", "s"), A("value", "v")], output: []),
        ],
        signals: [
            .init(name: "PropertiesChanged", arguments: [A("interface_name", "s"), A("changed_properties", "a{sv}"), A("invalidated_properties", "as")]),
        ],
        properties: [])

    public static let introspectable = InterfaceDescription(
        name: API.introspectableInterface,
        methods: [.init(name: "Introspect", input: [], output: [A("xml_data", "s")])],
        signals: [], properties: [])

    public static let peer = InterfaceDescription(
        name: API.peerInterface,
        methods: [
            .init(name: "Ping", input: [], output: []),
            .init(name: "GetMachineId", input: [], output: [A("machine_uuid", "s")]),
        ],
        signals: [], properties: [])

    public static let standard = [peer, introspectable, properties]
}
