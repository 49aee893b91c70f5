/// `application/x-www-form-urlencoded` bodies, as the token endpoint takes them
/// (RFC 6749 Appendix B; WHATWG URL Standard, "urlencoded serializing").
///
/// UTF-8 bytes; ALPHA, DIGIT, `-`, `.` and `_` as they are; space as `+`; every
/// other byte as `%XX` in upper case. WHATWG would also leave `*` bare, while
/// Appendix B's example encodes it: encoding it satisfies both, and every
/// decoder reads `%2A` as `*`.
public enum FormURLEncoding {
    public static let contentType = "application/x-www-form-urlencoded"

    /// `name=value` pairs joined by `&`, in the given order.
    public static func encode(_ pairs: [(String, String)]) -> [UInt8] {
        var out: [UInt8] = []
        for (i, (name, value)) in pairs.enumerated() {
            if i > 0 { out.append(UInt8(ascii: "&")) }
            append(name, to: &out)
            out.append(UInt8(ascii: "="))
            append(value, to: &out)
        }
        return out
    }

    /// One name or value, encoded.
    public static func encode(_ text: String) -> String {
        var out: [UInt8] = []
        append(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private static let hex = Array("0123456789ABCDEF".utf8)

    private static func append(_ text: String, to out: inout [UInt8]) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                out.append(byte)
            case UInt8(ascii: " "):
                out.append(UInt8(ascii: "+"))
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
    }
}
