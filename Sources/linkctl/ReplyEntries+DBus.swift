import DBusKit

extension ReplyEntries {
    /// An `a{sv}` as `DBusValue`s, read as the front reads it from libdbus: strings, 64-bit integers, booleans and
    /// string arrays; any other value is left out.
    init(vardict: DBusValue?) {
        for (key, wrapped) in vardict?.stringKeyedEntries ?? [] {
            switch wrapped.variantValue {
            case .string(let s)?: all.append((key, .string(s)))
            case .int64(let n)?: all.append((key, .integer(n)))
            case .boolean(let b)?: all.append((key, .boolean(b)))
            case .array(_, let items)? where items.allSatisfy({ $0.stringValue != nil }):
                all.append((key, .strings(items.compactMap(\.stringValue))))
            default: break
            }
        }
    }
}
