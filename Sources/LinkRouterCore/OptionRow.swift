/// One option of a method that takes `a{sv}` (`BeginSession`, `Login`,
/// `RefreshTokens`, and those to come), declared once: its D-Bus key and
/// type, how its value sets the request, its length limit, its linkctl flag
/// and its line in docs/dbus-api.md. The daemon's decoder, linkctl's flags,
/// the length checks and the docs test all read the method's `OptionTable`.
/// A new option is one row.
public struct OptionRow<Request>: Sendable {
    /// The value's D-Bus type, and how it sets the request. Closures, not key
    /// paths: key paths cost linkctl ~0.6 M instructions to make at start.
    public enum Field: Sendable {
        case string(@Sendable (inout Request, String) -> Void, get: @Sendable (Request) -> String?)
        case bool(@Sendable (inout Request, Bool) -> Void)
        case uint32(@Sendable (inout Request, UInt32) -> Void)
        case strings(@Sendable (inout Request, [String]) -> Void)
        case stringMap(@Sendable (inout Request, [String: String]) -> Void)

        /// The D-Bus signature the option's variant must hold.
        public var signature: String {
            switch self {
            case .string: return "s"
            case .bool: return "b"
            case .uint32: return "u"
            case .strings: return "as"
            case .stringMap: return "a{ss}"
            }
        }
    }

    /// How linkctl spells the option.
    public enum Flag: Sendable {
        /// `--name VALUE`.
        case value(String, placeholder: String)
        /// `--name VALUE`, repeatable: each adds one entry to the list.
        case repeated(String, placeholder: String)
        /// `--name NAME=VALUE`, repeatable: each adds one pair.
        case pairs(String)
        /// `--name`: sets the boolean option to `true`.
        case setsTrue(String)
        /// `--name`: sets the boolean option to `false`.
        case setsFalse(String)

        public var name: String {
            switch self {
            case .value(let n, _), .repeated(let n, _), .pairs(let n), .setsTrue(let n), .setsFalse(let n): return n
            }
        }
    }

    /// A string option's longest value.
    public enum Limit: Sendable {
        /// `Limits.maxOptionBytes` (2 KiB by default).
        case option
        /// `Limits.maxAuthorizeURLBytes` (8 KiB by default).
        case authorizeURL
        case bytes(Int)
        case none

        public func bytes(_ limits: Limits) -> Int? {
            switch self {
            case .option: return limits.maxOptionBytes
            case .authorizeURL: return limits.maxAuthorizeURLBytes
            case .bytes(let n): return n
            case .none: return nil
            }
        }
    }

    public let key: String
    public let field: Field
    public let limit: Limit
    public let flag: Flag
    /// linkctl's help line.
    public let help: String
    /// The line in docs/dbus-api.md's option table.
    public let doc: String

    public init(_ key: String, _ field: Field, limit: Limit = .none, flag: Flag, help: String, doc: String) {
        self.key = key
        self.field = field
        self.limit = limit
        self.flag = flag
        self.help = help
        self.doc = doc
    }

    /// The D-Bus signature of the option's value.
    public var signature: String { field.signature }
}
