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
        let u = Array(text.utf8)
        guard !u.isEmpty, u.count <= maxLength else { return false }
        let elements = u.split(separator: 0x2E, omittingEmptySubsequences: false)
        guard elements.count >= 2 else { return false }
        for e in elements {
            guard let first = e.first else { return false }
            if !digitsFirst && isDigit(first) { return false }
            for b in e where !(isElementByte(b) || (allowHyphen && b == 0x2D)) { return false }
        }
        return true
    }
}
