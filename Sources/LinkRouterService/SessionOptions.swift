public import DBusKit
public import LinkRouterCore

/// Turns `BeginSession`'s `a{sv}` into a `SessionRequest` by the option
/// table (`SessionOption.all`), checking every value's type. Unknown keys
/// are refused rather than ignored: an option a client relies on for safety
/// (`issuer`, say) must never be dropped silently.
public enum SessionOptions {
    /// Public for the message fuzzer (fuzz/), which feeds it every decoded a{sv}.
    public static func decode(_ options: DBusValue) throws(DBusError) -> SessionRequest {
        guard let entries = options.stringKeyedEntries else {
            throw DBusError(name: DBusError.invalidArgs, message: "BeginSession takes a{sv} options")
        }
        var request = SessionRequest()
        var seen: Set<String> = []
        for (key, wrapped) in entries {
            guard seen.insert(key).inserted else {
                throw DBusError(name: DBusError.invalidArgs, message: "option \"\(key)\" is given twice")
            }
            guard let option = SessionOption.named(key) else {
                throw DBusError(name: DBusError.invalidArgs, message: "unknown option \"\(clip(key))\"; known options: \(SessionOption.all.map(\.key).sorted().joined(separator: ", "))")
            }
            let type = option.value.signature
            guard let value = wrapped.variantValue, value.signature == type else {
                let got = wrapped.variantValue?.signature ?? wrapped.signature
                throw DBusError(name: DBusError.invalidArgs, message: "option \"\(key)\" must be of type \(type), not \(got)")
            }
            switch (option.value, value) {
            case (.string(let field), .string(let s)): request[text: field] = s
            case (.bool(let field), .boolean(let b)): request[flag: field] = b
            case (.uint32, .uint32(let u)): request.ttl = u
            case (.strings, .array(_, let items)): request.resumeHosts = items.compactMap(\.stringValue)
            case (.stringMap, let dict):
                var map: [String: String] = [:]
                for (k, v) in dict.stringKeyedEntries ?? [] {
                    guard map[k] == nil else {
                        throw DBusError(name: DBusError.invalidArgs, message: "\(key) names \"\(clip(k))\" twice")
                    }
                    map[k] = v.stringValue ?? ""
                }
                request.extraParams = map
            default:
                throw DBusError(name: DBusError.invalidArgs, message: "option \"\(key)\" has an unexpected value")
            }
        }
        return request
    }

    static func clip(_ s: String) -> String { s.utf8.count > 64 ? String(s.prefix(64)) + "…" : s }
}
