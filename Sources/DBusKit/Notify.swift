/// `org.freedesktop.Notifications.Notify(s app_name, u replaces_id, s
/// app_icon, s summary, s body, as actions, a{sv} hints, i expire_timeout) →
/// u id` (the Desktop Notifications spec): a notification on whatever server
/// the desktop runs (GNOME Shell, KDE Plasma, dunst, mako).
public struct Notify: BusCall {
    public typealias Reply = UInt32

    public let proxy = BusProxy(
        destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
        interface: "org.freedesktop.Notifications")
    public var appName: String
    /// The notification it replaces (0: none).
    public var replaces: UInt32
    public var icon: String
    public var summary: String
    public var body: String
    /// Pairs of (action key, label); `default` is the click on the notification itself.
    public var actions: [(key: String, label: String)]
    /// -1: the server's default; 0: until dismissed.
    public var expireTimeout: Int32

    public init(
        appName: String, replaces: UInt32 = 0, icon: String, summary: String, body: String,
        actions: [(key: String, label: String)] = [], expireTimeout: Int32 = -1
    ) {
        self.appName = appName
        self.replaces = replaces
        self.icon = icon
        self.summary = summary
        self.body = body
        self.actions = actions
        self.expireTimeout = expireTimeout
    }

    public static let member: MemberName = "Notify"

    public var arguments: [DBusValue] {
        [
            .string(appName), .uint32(replaces), .string(icon), .string(summary), .string(body),
            .stringArray(actions.flatMap { [$0.key, $0.label] }), .vardict([]), .int32(expireTimeout),
        ]
    }

    public static func reply(_ values: [DBusValue]) throws(DBusError) -> UInt32 {
        guard values.count == 1, case .uint32(let id) = values[0] else { throw .unexpectedReply(member) }
        return id
    }
}
