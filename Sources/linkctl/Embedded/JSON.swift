/// Just enough JSON for `--json` output, without Foundation on the link-click path. linkctl's front compiles this
/// file as it is (Embedded Swift: no key paths), so both halves write the same text.
indirect enum JSON {
    case string(String)
    case number(Int64)
    case bool(Bool)
    case null
    case array([JSON])
    /// Keys keep their order, so output is stable.
    case object([(String, JSON)])
    /// JSON text made elsewhere, already valid (the ID-token claims the daemon verified and parsed).
    case raw(String)

    var text: String {
        switch self {
        case .string(let s): return Self.quote(s)
        case .number(let n): return String(n)
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .array(let items): return "[" + items.map { $0.text }.joined(separator: ",") + "]"
        case .object(let fields):
            return "{" + fields.map { Self.quote($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
        case .raw(let text): return text
        }
    }

    static func quote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                out += "\\u00"
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(u.value >> 4)]))
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(u.value & 15)]))
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }
}
