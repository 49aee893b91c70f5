/// `org.freedesktop.Notifications.Notify(s app_name, u replaces_id, s
/// app_icon, s summary, s body, as actions, a{sv} hints, i expire_timeout) →
/// u id` (the Desktop Notifications spec): a notification on whatever server
/// the desktop runs (GNOME Shell, KDE Plasma, dunst, mako).
public struct Notify: BusCall {
    public typealias Reply = UInt32

    public let proxy = Notify.server

    /// The notification server, wherever the desktop runs one.
    public static let server = BusProxy(
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

/// `org.freedesktop.Notifications.CloseNotification(u id)`: a notification withdrawn.
public struct CloseNotification: BusCall {
    public typealias Reply = NoReply

    public let proxy = Notify.server
    public let id: UInt32

    public init(_ id: UInt32) { self.id = id }

    public static let member: MemberName = "CloseNotification"
    public var arguments: [DBusValue] { [.uint32(id)] }
    public static func reply(_ values: [DBusValue]) throws(DBusError) -> NoReply { NoReply() }
}

/// What the notification server says back about a notification it shows:
/// `ActionInvoked(u id, s action_key)` (the person chose an action; `default`
/// is a click on it) and `NotificationClosed(u id, u reason)` (1 expired, 2
/// dismissed, 3 closed by a call). Broadcast: every client hears every id,
/// and keeps only its own.
public enum NotificationSignal: Sendable, Equatable {
    case actionInvoked(id: UInt32, action: String)
    case closed(id: UInt32, reason: UInt32)

    /// The match rules that bring them.
    public static let rules = [
        SignalSubscriptions.Rule(
            path: "/org/freedesktop/Notifications", interface: "org.freedesktop.Notifications",
            member: "ActionInvoked"),
        SignalSubscriptions.Rule(
            path: "/org/freedesktop/Notifications", interface: "org.freedesktop.Notifications",
            member: "NotificationClosed"),
    ]

    /// The signal `m` is, read; nil for any other message or shape.
    public init?(_ m: DBusMessage) {
        guard m.interface == "org.freedesktop.Notifications", let args = try? m.arguments(), args.count == 2,
            case .uint32(let id) = args[0]
        else { return nil }
        switch (m.member, args[1]) {
        case ("ActionInvoked", .string(let action)): self = .actionInvoked(id: id, action: action)
        case ("NotificationClosed", .uint32(let reason)): self = .closed(id: id, reason: reason)
        default: return nil
        }
    }
}
