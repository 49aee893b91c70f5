/// An app that takes links: an installed desktop entry, not linkrouter's,
/// that declares a scheme (`MimeType=x-scheme-handler/…`) or claims https
/// prefixes (`X-LinkRouter-Claims=`). The daemon finds them (DesktopIntegration);
/// the core only needs to know which one, and how it is reached.
public struct LinkApp: Sendable, Equatable {
    /// How a link reaches the app.
    public enum Delivery: Sendable, Equatable {
        /// `DBusActivatable=true`: `org.freedesktop.Application.Open` on its bus
        /// name, which D-Bus activation starts if needed (Desktop Entry spec, "D-Bus Activation").
        case dbus
        /// Its `Exec` line, with the URL.
        case exec
    }

    /// The desktop file id, `com.example.App.desktop`.
    public let id: String
    public let delivery: Delivery

    public init(id: String, delivery: Delivery) {
        self.id = id
        self.delivery = delivery
    }

    /// The id without `.desktop`: the bus name of a D-Bus activatable app.
    public var appID: String { id.hasSuffix(".desktop") ? String(id.dropLast(8)) : id }

    /// The object path the spec derives from the app id: `/` + the id with
    /// `.` turned into `/` and `-` into `_`.
    public var objectPath: String {
        "/" + String(appID.map { $0 == "." ? "/" : $0 == "-" ? "_" : $0 })
    }
}

/// What came with a click, for the app's window to take focus (Wayland's
/// xdg-activation, X11's startup notification).
public struct ActivationContext: Sendable, Equatable {
    public var activationToken: String?
    public var desktopStartupID: String?

    public init(activationToken: String? = nil, desktopStartupID: String? = nil) {
        self.activationToken = activationToken
        self.desktopStartupID = desktopStartupID
    }

    public static let none = ActivationContext()
}
