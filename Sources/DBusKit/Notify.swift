import SystemKit

/// `org.freedesktop.Notifications.Notify(s app_name, u replaces_id, s
/// app_icon, s summary, s body, as actions, a{sv} hints, i expire_timeout) →
/// u id` (the Desktop Notifications spec): a notification on whatever server
/// the desktop runs (GNOME Shell, KDE Plasma, dunst, mako).
public struct Notify: BusCall {
    /// The id the server gave, and the server's unique name (the reply's sender): only that server's signals about
    /// the id are about this notification.
    public typealias Reply = (id: UInt32, server: String)

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

    public static func reply(_ values: [DBusValue]) throws(DBusError) -> Reply {
        throw .unexpectedReply(member)
    }

    public static func reply(message: DBusMessage) throws(DBusError) -> Reply {
        let values = try message.arguments()
        guard values.count == 1, case .uint32(let id) = values[0], let server = message.sender else {
            throw .unexpectedReply(member)
        }
        return (id, server)
    }

    /// `text` for a body a server shows as markup (`body-markup` among its capabilities, as GNOME Shell, KDE
    /// Plasma, dunst and mako have it): `&`, `<` and `>` escaped (`Markup.escape`), so an app's words (an
    /// audience, a program's name) show as typed and never as bold green "Verified" text. A server without the
    /// capability shows the body as it is sent (the spec has clients strip markup for it), so it gets `text`
    /// unchanged.
    public static func body(_ text: String, serverReadsMarkup: Bool) -> String {
        serverReadsMarkup ? Markup.escape(text, quotes: false) : text
    }
}

/// `org.freedesktop.Notifications.GetCapabilities() → as`: what the server
/// does (`actions`, `body-markup`, …).
public struct NotificationCapabilities: BusCall {
    public typealias Reply = [String]

    public let proxy = Notify.server

    public init() {}

    public static let member: MemberName = "GetCapabilities"
    public var arguments: [DBusValue] { [] }

    public static func reply(_ values: [DBusValue]) throws(DBusError) -> [String] {
        guard values.count == 1, case .array(_, let items) = values[0] else { throw .unexpectedReply(member) }
        return items.compactMap(\.stringValue)
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
/// is a click on it), `NotificationClosed(u id, u reason)` (1 expired, 2
/// dismissed, 3 closed by a call) and `ActivationToken(u id, s token)`. Broadcast: every client hears every id,
/// and keeps only its own.
public enum NotificationSignal: Sendable, Equatable {
    case actionInvoked(id: UInt32, action: String)
    case closed(id: UInt32, reason: UInt32)
    /// `ActivationToken(u id, s token)` (spec 1.2): sent just before `ActionInvoked`, the token whatever the
    /// action opens may take focus with.
    case activationToken(id: UInt32, token: String)

    /// The match rules that bring them.
    public static let rules = [
        SignalSubscriptions.Rule(
            path: "/org/freedesktop/Notifications", interface: "org.freedesktop.Notifications",
            member: "ActionInvoked"),
        SignalSubscriptions.Rule(
            path: "/org/freedesktop/Notifications", interface: "org.freedesktop.Notifications",
            member: "NotificationClosed"),
        SignalSubscriptions.Rule(
            path: "/org/freedesktop/Notifications", interface: "org.freedesktop.Notifications",
            member: "ActivationToken"),
    ]

    /// The signal `m` is, read; nil for any other message or shape.
    public init?(_ m: DBusMessage) {
        guard m.interface == "org.freedesktop.Notifications", let args = try? m.arguments(), args.count == 2,
            case .uint32(let id) = args[0]
        else { return nil }
        switch (m.member, args[1]) {
        case ("ActionInvoked", .string(let action)): self = .actionInvoked(id: id, action: action)
        case ("NotificationClosed", .uint32(let reason)): self = .closed(id: id, reason: reason)
        case ("ActivationToken", .string(let token)): self = .activationToken(id: id, token: token)
        default: return nil
        }
    }
}
