extension Base64URL {
    /// Decodes unpadded base64url, accepting only the one canonical spelling
    /// of each byte string (RFC 7515 §2, RFC 4648 §3.5): no `=` padding, no
    /// whitespace, no length that leaves a lone character, and the unused low
    /// bits of the last character zero. A token with two spellings of the
    /// same signature would let a replay check keyed on the text be dodged.
    /// Returns nil for anything else.
    public static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        if text.count % 4 == 1 { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(text.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for c in text {
            guard let v = value(of: c) else { return nil }
            accumulator = accumulator << 6 | UInt32(v)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // 2 or 4 leftover bits belong to no byte; a canonical encoder writes zeros.
        guard accumulator == 0 else { return nil }
        return out
    }

    /// `decode` of a string's UTF-8.
    public static func decode(_ text: String) -> [UInt8]? { decode(text.utf8) }

    private static func value(of c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return c - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return c - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): return 62
        case UInt8(ascii: "_"): return 63
        default: return nil
        }
    }
}
