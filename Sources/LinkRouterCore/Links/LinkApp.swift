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
/// xdg-activation, X11's startup notification): the token a launcher put in
/// linkctl's environment (`XDG_ACTIVATION_TOKEN`, `DESKTOP_STARTUP_ID`), an
/// app's `activation_token` option, a notification server's
/// `ActivationToken`. Whatever linkrouter hands on next (an app it delivers a
/// link to, a browser it opens, a `Wait` it answers) carries it, under both
/// names: GTK 4.8 and GLib 2.74 read only the startup-id forms, later ones
/// `XDG_ACTIVATION_TOKEN` (issue 45). A token is a bearer of focus for a few
/// seconds: it is never logged whole and never written to the store.
public struct ActivationContext: Sendable, Equatable {
    public var activationToken: String?
    public var desktopStartupID: String?
    /// What was dropped on the way in and why (never the value): the link goes on without it, and the daemon says
    /// so in its log.
    public var dropped: [String] = []

    public init(activationToken: String? = nil, desktopStartupID: String? = nil) {
        self.activationToken = activationToken
        self.desktopStartupID = desktopStartupID
    }

    /// One token given under one name: both names carry it.
    public init(token: String?) {
        self.init(activationToken: token, desktopStartupID: token)
    }

    public static let none = ActivationContext()

    /// The token to hand on: the xdg-activation one, else the startup id.
    public var token: String? { activationToken ?? desktopStartupID }

    /// Both names filled: each as given, a missing one from the other (what a launched program's environment and an
    /// app's `platform_data` get; on Wayland both name the one token, and GTK 4.8 reads only the startup id).
    public var forHandOn: ActivationContext {
        ActivationContext(
            activationToken: activationToken ?? desktopStartupID, desktopStartupID: desktopStartupID ?? activationToken)
    }

    /// The longest token taken: a token is an opaque id (wlroots: 32 hex digits; GNOME: an id and a time).
    public static let maxTokenBytes = 1024

    /// Whether `text` can be a token: printable ASCII, at most `maxTokenBytes`. Anything else is dropped, never the
    /// link it came with.
    public static func isUsable(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= maxTokenBytes && text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    /// `token` for a log line: its first 6 characters, so two can be told apart and none can be used.
    public static func logged(_ token: String) -> String { String(token.prefix(6)) + "…" }
}
