/// A parsed JSON document as a plain value, so the rules that read JOSE
/// headers, JWKs and claims stay pure and testable without the parser.
///
/// Integers and reals are distinct cases because JSON text distinguishes
/// them and claims such as `exp` must be exact; an object keeps its members
/// in document order (a list, not a dictionary) so nothing is silently
/// merged or reordered.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number written without fraction or exponent that fits in 64 bits.
    case integer(Int64)
    /// Any other number.
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// Members in document order.
    case object([(String, JSONValue)])

    /// The first member named `key` when this is an object. (A parsed object
    /// never has two: `JSONParser` refuses duplicate names.)
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// The string, when this is one.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// An integer, or a real with no fractional part that fits `Int64`
    /// (`1e3` and `1.0` are `1000` and `1`): JWT NumericDates may be either.
    public var int64Value: Int64? {
        switch self {
        case .integer(let i): return i
        case .number(let d): return Int64(exactly: d)
        case .null, .bool, .string, .array, .object: return nil
        }
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The members in document order, when this is an object.
    public var objectValue: [(String, JSONValue)]? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// Structural equality: same case, same members in the same order.
    /// `.integer(1)` and `.number(1)` differ, as they do in the text.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }
}
