import DBusKit

/// An `a{sv}` options argument (`BeginSession`, `RefreshTokens`): each key
/// must be one the method knows and given once. Unknown keys are refused,
/// never ignored: an option a client relies on for safety must not be dropped.
enum OptionsArgument {
    /// Calls `body` with each entry, in order, and the row its key names; the
    /// value still in its variant. Stops at the first error, `body`'s or its own.
    static func forEach<Row>(
        _ options: DBusValue, of method: String, row: (String) -> Row?, known: @autoclosure () -> [String],
        _ body: (Row, String, DBusValue) throws(DBusError) -> Void
    ) throws(DBusError) {
        guard let pairs = options.stringKeyedEntries else {
            throw DBusError(name: DBusError.invalidArgs, message: "\(method) takes a{sv} options")
        }
        var seen: Set<String> = []
        for (key, wrapped) in pairs {
            guard seen.insert(key).inserted else {
                throw DBusError(name: DBusError.invalidArgs, message: "option \"\(key)\" is given twice")
            }
            guard let r = row(key) else {
                throw DBusError(
                    name: DBusError.invalidArgs,
                    message: "unknown option \"\(clip(key))\"; known options: \(known().joined(separator: ", "))")
            }
            try body(r, key, wrapped)
        }
    }

    /// A key as it goes into an error message: at most 64 bytes' worth.
    static func clip(_ s: String) -> String { s.utf8.count > 64 ? String(s.prefix(64)) + "…" : s }
}
