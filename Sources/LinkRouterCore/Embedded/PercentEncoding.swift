/// Strict percent-decoding and encoding (RFC 3986 §2.1, WHATWG form encoding).
///
/// Foundation turns `%FF` into nil and re-encodes `%zz`; here both are errors,
/// so a malformed value can never look like an absent one.
public enum PercentEncoding {
    /// Decodes `%XX` escapes (and `+` as space when `form` is set), then requires
    /// well-formed UTF-8 with no control characters.
    public static func decode(_ raw: Substring, form: Bool) throws(RouterError) -> String {
        // Most values have nothing to decode: printable ASCII is its own decoding.
        if raw.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x25 && ($0 != 0x2B || !form) }) { return String(raw) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(raw.utf8.count)
        var it = raw.utf8.makeIterator()
        while let b = it.next() {
            if b == 0x25 {
                guard let h = it.next(), let l = it.next(), ASCII.isHexDigit(h), ASCII.isHexDigit(l) else {
                    throw .invalid(
                        "invalid percent-encoding in \"\(Self.preview(raw))\": \"%\" must be followed by two hex digits"
                    )
                }
                bytes.append(ASCII.hexValue(h) << 4 | ASCII.hexValue(l))
            } else if b == 0x2B && form {
                bytes.append(0x20)
            } else {
                bytes.append(b)
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .invalid("\"\(Self.preview(raw))\" does not decode to valid UTF-8")
        }
        if bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            throw .invalid(
                "\"\(Self.preview(raw))\" decodes to a control character (NUL, newline, tab…), which no callback value may hold"
            )
        }
        return text
    }

    /// Checks that every `%` in `raw` starts a valid escape, without decoding.
    public static func isWellFormed(_ raw: Substring) -> Bool {
        let u = Array(raw.utf8)
        var i = 0
        while i < u.count {
            if u[i] == 0x25 {
                guard i + 2 < u.count, ASCII.isHexDigit(u[i + 1]), ASCII.isHexDigit(u[i + 2]) else { return false }
                i += 3
            } else {
                i += 1
            }
        }
        return true
    }

    /// Encodes everything but RFC 3986 `unreserved`: safe for any query name or value.
    public static func encode(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for b in text.utf8 {
            if ASCII.isUnreserved(b) {
                out.append(b)
            } else {
                out.append(0x25)
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A short, printable excerpt for error messages: never the whole of a hostile value.
    static func preview(_ raw: Substring) -> String {
        let cut = raw.utf8.count > 40 ? String(raw.prefix(40)) + "…" : String(raw)
        return String(decoding: cut.utf8.map { ASCII.isControlOrSpace($0) && $0 != 0x20 ? 0x3F : $0 }, as: UTF8.self)
    }
}
