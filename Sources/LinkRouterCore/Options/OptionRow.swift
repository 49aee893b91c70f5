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
        /// Every kind but `stringMap` may say how to read the value back: an option a login keeps
        /// (`LoginOptions`) is written to the store by the same row that took it in.
        case string(@Sendable (inout Request, String) -> Void, get: @Sendable (Request) -> String?)
        case bool(@Sendable (inout Request, Bool) -> Void, get: (@Sendable (Request) -> Bool)? = nil)
        case uint32(@Sendable (inout Request, UInt32) -> Void, get: (@Sendable (Request) -> UInt32?)? = nil)
        case strings(@Sendable (inout Request, [String]) -> Void, get: (@Sendable (Request) -> [String])? = nil)
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

extension OptionRow {
    /// The same option, for a request that holds a `Request` as a part (`SessionRequest.login`):
    /// one declaration serves both.
    func lifted<Outer>(
        _ part: @escaping @Sendable (Outer) -> Request, _ put: @escaping @Sendable (inout Outer, Request) -> Void
    ) -> OptionRow<Outer> {
        func setting<V>(_ set: @escaping @Sendable (inout Request, V) -> Void) -> @Sendable (inout Outer, V) -> Void {
            { outer, value in
                var inner = part(outer)
                set(&inner, value)
                put(&outer, inner)
            }
        }
        func getting<V>(_ get: (@Sendable (Request) -> V)?) -> (@Sendable (Outer) -> V)? {
            guard let get else { return nil }
            return { outer in get(part(outer)) }
        }
        let lifted: OptionRow<Outer>.Field
        switch field {
        case .string(let set, let get):
            let read: @Sendable (Outer) -> String? = { outer in get(part(outer)) }
            lifted = .string(setting(set), get: read)
        case .bool(let set, let get): lifted = .bool(setting(set), get: getting(get))
        case .uint32(let set, let get): lifted = .uint32(setting(set), get: getting(get))
        case .strings(let set, let get): lifted = .strings(setting(set), get: getting(get))
        case .stringMap(let set): lifted = .stringMap(setting(set))
        }
        // `Limit` and `Flag` are the same in every row type, but nested in a generic one: spelled again.
        let outerLimit: OptionRow<Outer>.Limit =
            switch limit {
            case .option: .option
            case .authorizeURL: .authorizeURL
            case .bytes(let n): .bytes(n)
            case .none: .none
            }
        let outerFlag: OptionRow<Outer>.Flag =
            switch flag {
            case .value(let n, let p): .value(n, placeholder: p)
            case .repeated(let n, let p): .repeated(n, placeholder: p)
            case .pairs(let n): .pairs(n)
            case .setsTrue(let n): .setsTrue(n)
            case .setsFalse(let n): .setsFalse(n)
            }
        return OptionRow<Outer>(key, lifted, limit: outerLimit, flag: outerFlag, help: help, doc: doc)
    }
}
