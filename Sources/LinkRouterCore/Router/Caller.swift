/// Who a session belongs to: the D-Bus connection that began it (its unique
/// name is the strong primitive: a login is bound to it, no pid needed), and
/// the app behind that connection once the daemon has found out
/// (`Operation.identify`). Nothing is decided on the app yet; it is recorded
/// and shown (`linkctl sessions`).
public struct Caller: Sendable, Equatable {
    /// The connection's unique bus name, `:1.42`.
    public let name: String
    public var app: CallerApp

    public init(name: String, app: CallerApp = .unknown) {
        self.name = name
        self.app = app
    }

    /// The name that stands for the person at the desktop, who began a sign-in by clicking its notice
    /// (`AccountNotice`): no bus connection, so no `Wait` hears of it, and what goes wrong is told in a
    /// notification instead.
    public static let personName = ""

    /// Whether this is the person (`personName`), not a bus connection.
    public var isThePerson: Bool { name == Self.personName }
}

/// The app behind a connection, as far as the bus and the kernel tell it.
public enum CallerApp: Sendable, Equatable, Hashable {
    /// Not found out (yet).
    case unknown
    /// A program of the user's on the host: no app id that can be trusted.
    case host
    /// A Flatpak app: the `[Application] name` of its `/.flatpak-info`.
    case flatpak(String)
    /// A Snap: its instance name.
    case snap(String)
    /// A program on another machine, through an `ssh -R` forward of the agent socket (`AgentForward`): the host it
    /// was forwarded to, as the person named it. Nothing vouches for which program there it is; the prompt says so.
    case remote(String)

    /// The app's own id (a Flatpak's `org.example.App`, a Snap's name), or the label for the others.
    public var id: String {
        switch self {
        case .flatpak(let id), .snap(let id), .remote(let id): id
        case .unknown, .host: label
        }
    }

    /// Whether a sandbox vouches for it (Flatpak, Snap): an app id the daemon can hold its calls and grants to.
    public var isSandboxed: Bool {
        switch self {
        case .flatpak, .snap, .remote: true
        case .unknown, .host: false
        }
    }

    /// What kind of sandbox vouches for `id`, in words.
    public var kindName: String {
        switch self {
        case .flatpak: "a Flatpak app"
        case .snap: "a Snap"
        case .remote(let host): "a program on \(host), through an ssh forward"
        case .host: "a program of yours"
        case .unknown: "not identified"
        }
    }

    /// The sandbox's name beside an app's own, in a prompt: `Flatpak`, `Snap`.
    public var shortKindName: String {
        switch self {
        case .flatpak: "Flatpak"
        case .snap: "Snap"
        case .remote: "via ssh"
        case .host: "host"
        case .unknown: "unknown"
        }
    }

    /// How it is stored and shown: `unknown`, `host`, `flatpak:ID`, `snap:NAME`.
    public var label: String {
        switch self {
        case .unknown: return "unknown"
        case .host: return "host"
        case .flatpak(let id): return "flatpak:" + id
        case .snap(let name): return "snap:" + name
        case .remote(let host): return "ssh:" + host
        }
    }

    public init?(label: String) {
        switch label {
        case "unknown": self = .unknown
        case "host": self = .host
        default:
            if label.hasPrefix("flatpak:") {
                self = .flatpak(String(label.dropFirst(8)))
            } else if label.hasPrefix("snap:") {
                self = .snap(String(label.dropFirst(5)))
            } else if label.hasPrefix("ssh:") {
                self = .remote(String(label.dropFirst(4)))
            } else {
                return nil
            }
        }
    }
}
