/// A D-Bus type signature, valid by construction.
///
/// The spec: a signature is a list of single complete types: a basic type
/// code (`ybnqiuxtdsogh`), `v`, `a` followed by a single complete type,
/// `(`…`)` around one or more, and `{`…`}` (a basic key, then one value)
/// only as an array's element. At most 255 bytes, 32 nested arrays and 32
/// nested structures.
public struct DBusSignature: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init?(_ text: String) {
        guard Self.completeTypes(of: text) != nil else { return nil }
        rawValue = text
    }

    /// A signature known to be valid (literals in this package).
    init(trusted text: String) { rawValue = text }

    public var description: String { rawValue }

    static let basicCodes = Set("ybnqiuxtdsogh".utf8)

    /// Splits `text` into its single complete types, or nil if it is not a valid signature.
    public static func completeTypes(of text: String) -> [String]? {
        let u = Array(text.utf8)
        guard u.count <= 255 else { return nil }
        var i = 0
        var out: [String] = []
        while i < u.count {
            let start = i
            guard parseOne(u, &i, arrays: 0, structs: 0, inArray: false) else { return nil }
            out.append(String(decoding: u[start..<i], as: UTF8.self))
        }
        return out
    }

    private static func parseOne(_ u: [UInt8], _ i: inout Int, arrays: Int, structs: Int, inArray: Bool) -> Bool {
        guard i < u.count else { return false }
        let c = u[i]
        i += 1
        if basicCodes.contains(c) || c == UInt8(ascii: "v") { return true }
        switch c {
        case UInt8(ascii: "a"):
            guard arrays < 32 else { return false }
            return parseOne(u, &i, arrays: arrays + 1, structs: structs, inArray: true)
        case UInt8(ascii: "("):
            guard structs < 32 else { return false }
            var count = 0
            while i < u.count && u[i] != UInt8(ascii: ")") {
                guard parseOne(u, &i, arrays: arrays, structs: structs + 1, inArray: false) else { return false }
                count += 1
            }
            guard i < u.count, count > 0 else { return false }
            i += 1
            return true
        case UInt8(ascii: "{"):
            guard inArray, i < u.count, basicCodes.contains(u[i]) else { return false }
            i += 1
            guard parseOne(u, &i, arrays: arrays, structs: structs + 1, inArray: false) else { return false }
            guard i < u.count, u[i] == UInt8(ascii: "}") else { return false }
            i += 1
            return true
        default:
            return false
        }
    }
}
