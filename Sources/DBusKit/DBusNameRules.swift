/// The grammar shared by bus, interface, member and error names (D-Bus
/// specification, "Valid Names"): ASCII only, at most 255 bytes.
enum DBusNameRules {
    static let maxLength = 255

    /// `[A-Za-z0-9_]`
    static func isElementByte(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x5F
    }

    static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    /// Dot-separated elements of `[A-Za-z0-9_]` (plus `-` when `allowHyphen`),
    /// at least two, none empty, none starting with a digit unless `digitsFirst`.
    static func isDotted(_ text: String, allowHyphen: Bool, digitsFirst: Bool) -> Bool {
        // One pass over the bytes, no arrays: linkctl checks its literal names on
        // every click, and splitting cost ~20 k instructions of generic set-up.
        var count = 0
        var elements = 1
        var elementLength = 0
        for b in text.utf8 {
            count += 1
            if b == 0x2E {
                guard elementLength > 0 else { return false }
                elements += 1
                elementLength = 0
                continue
            }
            if elementLength == 0 && !digitsFirst && isDigit(b) { return false }
            guard isElementByte(b) || (allowHyphen && b == 0x2D) else { return false }
            elementLength += 1
        }
        return count > 0 && count <= maxLength && elements >= 2 && elementLength > 0
    }
}
