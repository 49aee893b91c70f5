import DBusKit
import LinkRouterCore
import SystemKit

/// linkctl's flags for a method's options, made from the method's option
/// table (`SessionRequest.options` for `begin` and `login`,
/// `RefreshRequest.options` for `token refresh`), and the `a{sv}` they give.
enum OptionFlags {
    static func options<Request>(_ table: OptionTable<Request>) -> [CommandSpec.Option] {
        table.rows.map { o in
            switch o.flag {
            case .value(let name, let placeholder): return .value(name, placeholder, o.help)
            case .repeated(let name, let placeholder): return .value(name, placeholder, o.help, repeatable: true)
            case .pairs(let name): return .value(name, "NAME=VALUE", o.help, repeatable: true)
            case .setsTrue(let name), .setsFalse(let name): return .flag(name, o.help)
            }
        }
    }

    /// The `a{sv}` entries the flags give, in the table's order; `override`
    /// supplies a string option's value instead of its flag (a generated claim
    /// token, a refresh token read from stdin).
    static func entries<Request>(
        _ table: OptionTable<Request>, _ args: ParsedArguments, override: [String: String] = [:]
    ) throws(UsageError) -> [(String, DBusValue)] {
        var entries: [(String, DBusValue)] = []
        for o in table.rows {
            switch (o.flag, o.field) {
            case (.value(let name, _), .string):
                if let v = override[o.key] ?? args.value(name) { entries.append((o.key, .string(v))) }
            case (.value(let name, let placeholder), .uint32):
                guard let t = args.value(name) else { continue }
                guard let n = UInt32(t) else {
                    throw UsageError(message: "--\(name) takes a number of \(placeholder.lowercased()), not \(t)")
                }
                entries.append((o.key, .uint32(n)))
            case (.repeated(let name, _), _):
                let items = args.all(name)
                if !items.isEmpty { entries.append((o.key, .stringArray(items))) }
            case (.pairs(let name), _):
                var pairs: [(String, String)] = []
                for p in args.all(name) {
                    guard let eq = p.firstIndex(of: "="), eq != p.startIndex else {
                        throw UsageError(message: "--\(name) takes NAME=VALUE, not \(p)")
                    }
                    pairs.append((String(p[..<eq]), String(p[p.index(after: eq)...])))
                }
                if !pairs.isEmpty { entries.append((o.key, .stringDict(pairs))) }
            case (.setsTrue(let name), _):
                if args.has(name) { entries.append((o.key, .boolean(true))) }
            case (.setsFalse(let name), _):
                if args.has(name) { entries.append((o.key, .boolean(false))) }
            default:
                break
            }
        }
        return entries
    }

    /// 32 random bytes from the kernel, base64url: a claim token for `begin`.
    static func randomToken() -> String {
        Base64URL.encode(SecureRandom.bytes(32))
    }
}
