import DBusKit

extension DBusValue {
    /// A reply field as a person reads it: a string as it is, a number in decimal; nil for other types.
    var plainText: String? {
        switch variantValue ?? self {
        case .string(let s): return s
        case .int64(let n): return String(n)
        default: return nil
        }
    }
}

extension JSON {
    /// An `a{sv}` reply as a JSON object, in order (`ReplyEntries`: strings, `x` numbers, booleans and string lists
    /// as themselves, other types left out); the values of `raw` keys are JSON text already (the verified claims).
    init(vardict: DBusValue?, raw: Set<String> = []) {
        self = ReplyEntries(vardict: vardict).json(raw: Array(raw))
    }
}
