/// `org.freedesktop.Application.Open(as uris, a{sv} platform_data)`: a link
/// handed to a D-Bus-activatable app (Desktop Entry spec, "D-Bus
/// Activation"), which the bus starts if it is not running.
public struct ApplicationOpen: BusCall {
    public typealias Reply = NoReply

    public let proxy: BusProxy
    public let uris: [String]
    /// `activation-token`, `desktop-startup-id`: what came with the click, for the window to take focus.
    public let platformData: [(String, String)]

    public init(app: BusName, path: ObjectPath, uris: [String], platformData: [(String, String)]) {
        proxy = BusProxy(destination: app, path: path, interface: "org.freedesktop.Application")
        self.uris = uris
        self.platformData = platformData
    }

    public static let member: MemberName = "Open"

    public var arguments: [DBusValue] {
        [.stringArray(uris), .vardict(platformData.map { ($0.0, .string($0.1)) })]
    }

    public static func reply(_ values: [DBusValue]) throws(DBusError) -> NoReply { NoReply() }
}
