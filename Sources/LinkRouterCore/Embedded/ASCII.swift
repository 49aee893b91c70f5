/// Byte classes from RFC 3986 §2 and RFC 6749 Appendix A, on UTF-8 code units.
///
/// Everything here works on bytes so that a hostile string is judged exactly
/// as it arrived, before any lenient decoder can repair it.
enum ASCII {
    static func isAlpha(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
    static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
    static func isHexDigit(_ b: UInt8) -> Bool { isDigit(b) || ((b | 0x20) >= 0x61 && (b | 0x20) <= 0x66) }
    static func hexValue(_ b: UInt8) -> UInt8 { isDigit(b) ? b - 0x30 : (b | 0x20) - 0x61 + 10 }

    /// RFC 3986 `unreserved`: ALPHA / DIGIT / "-" / "." / "_" / "~".
    static func isUnreserved(_ b: UInt8) -> Bool {
        isAlpha(b) || isDigit(b) || b == 0x2D || b == 0x2E || b == 0x5F || b == 0x7E
    }

    /// RFC 3986 `sub-delims`.
    static func isSubDelim(_ b: UInt8) -> Bool {
        switch b {
        case 0x21, 0x24, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x3B, 0x3D: return true
        default: return false
        }
    }

    /// A byte that may stand unencoded somewhere in a URI (unreserved, reserved, or "%").
    static func isURIByte(_ b: UInt8) -> Bool {
        if isUnreserved(b) || isSubDelim(b) { return true }
        switch b {
        case 0x3A, 0x2F, 0x3F, 0x23, 0x5B, 0x5D, 0x40, 0x25: return true  // : / ? # [ ] @ %
        default: return false
        }
    }

    /// C0 controls, space and DEL: never acceptable raw, nor after decoding a callback value.
    static func isControlOrSpace(_ b: UInt8) -> Bool { b <= 0x20 || b == 0x7F }

    static func lowercased(_ s: String) -> String {
        String(decoding: s.utf8.map { isAlpha($0) ? ($0 | 0x20) : $0 }, as: UTF8.self)
    }
}
