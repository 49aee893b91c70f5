/// A daemon's `a{sv}` answer as both halves of linkctl read it: its entries in the order they came, of the types
/// linkctl prints (a token's answer has no others; anything else is left out, by both). The front's libdbus reader
/// and the full linkctl's `DBusValue` both convert into it (`FrontBus`, `ReplyEntries+DBus.swift`), so what is
/// printed from it is written once.
struct ReplyEntries {
    enum Value {
        case string(String)
        case integer(Int64)
        case boolean(Bool)
        case strings([String])
    }

    var all: [(String, Value)] = []

    func value(_ key: String) -> Value? { all.first { $0.0 == key }?.1 }
    func entry(_ key: String) -> String? { if case .string(let s)? = value(key) { s } else { nil } }
    func integer(_ key: String) -> Int64? { if case .integer(let n)? = value(key) { n } else { nil } }
    func strings(_ key: String) -> [String] { if case .strings(let l)? = value(key) { l } else { [] } }

    /// As a JSON object, in order, each value as itself; the keys in `raw` hold JSON text already (an ID token's
    /// verified claims) and go in as it is.
    func json(raw: [String] = []) -> JSON {
        var fields: [(String, JSON)] = []
        for (key, value) in all {
            switch value {
            case .string(let s): fields.append((key, raw.contains(key) ? .raw(s) : .string(s)))
            case .integer(let n): fields.append((key, .number(n)))
            case .boolean(let b): fields.append((key, .bool(b)))
            case .strings(let list):
                var items: [JSON] = []
                for item in list { items.append(.string(item)) }
                fields.append((key, .array(items)))
            }
        }
        return .object(fields)
    }
}
