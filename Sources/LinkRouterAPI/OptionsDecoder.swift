public import DBusKit
public import LinkRouterCore

/// Turns a method's `a{sv}` into its request by the method's option table
/// (`SessionRequest.options`, `RefreshRequest.options`), checking every
/// value's type; unknown or repeated keys are refused, never ignored
/// (`OptionsArgument`). The values themselves are the core's to check.
public enum OptionsDecoder {
    /// Public for the message fuzzer (fuzz/), which feeds it every decoded a{sv}.
    public static func decode<Request>(_ options: DBusValue, _ table: OptionTable<Request>, into request: Request)
        throws(DBusError) -> Request
    {
        var request = request
        try OptionsArgument.forEach(options, of: table.method, row: table.named, known: table.keys) {
            row, key, wrapped throws(DBusError) in
            let type = row.signature
            guard let value = wrapped.variantValue, value.signature == type else {
                let got = wrapped.variantValue?.signature ?? wrapped.signature
                throw DBusError(
                    name: DBusError.invalidArgs, message: "option \"\(key)\" must be of type \(type), not \(got)")
            }
            switch (row.field, value) {
            case (.string(let set, _), .string(let s)): set(&request, s)
            case (.bool(let set, _), .boolean(let b)): set(&request, b)
            case (.uint32(let set, _), .uint32(let u)): set(&request, u)
            case (.strings(let set, _), .array(_, let items)): set(&request, items.compactMap(\.stringValue))
            case (.stringMap(let set), let dict):
                var map: [String: String] = [:]
                for (k, v) in dict.stringKeyedEntries ?? [] {
                    guard map[k] == nil else {
                        throw DBusError(
                            name: DBusError.invalidArgs, message: "\(key) names \"\(OptionsArgument.clip(k))\" twice")
                    }
                    map[k] = v.stringValue ?? ""
                }
                set(&request, map)
            default:
                throw DBusError(name: DBusError.invalidArgs, message: "option \"\(key)\" has an unexpected value")
            }
        }
        return request
    }

    public static func session(_ options: DBusValue) throws(DBusError) -> SessionRequest {
        try decode(options, SessionRequest.options, into: SessionRequest())
    }

    public static func refresh(_ options: DBusValue) throws(DBusError) -> RefreshRequest {
        try decode(options, RefreshRequest.options, into: RefreshRequest())
    }
}
