public import DBusKit
public import LinkRouterCore

/// Turns `BeginSession`'s `a{sv}` into a `SessionRequest` by the option
/// table (`SessionOption.all`), checking every value's type (keys by
/// `OptionsArgument`: unknown ones refused, not ignored).
public enum SessionOptions {
    /// Public for the message fuzzer (fuzz/), which feeds it every decoded a{sv}.
    public static func decode(_ options: DBusValue) throws(DBusError) -> SessionRequest {
        var request = SessionRequest()
        try OptionsArgument.forEach(options, of: "BeginSession", row: SessionOption.named,
                                    known: SessionOption.all.map(\.key).sorted()) { option, key, wrapped throws(DBusError) in
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
                        throw DBusError(name: DBusError.invalidArgs, message: "\(key) names \"\(OptionsArgument.clip(k))\" twice")
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
}
