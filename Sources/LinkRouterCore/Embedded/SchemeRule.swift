/// Which URI schemes linkrouter takes: the one rule for `linkctl open`,
/// `Route`, callback URIs and `linkctl register`. Byte checks with no
/// allocation: `Route` asks on every link.
public enum SchemeRule {
    /// Web and script schemes that are never an app's own scheme (lowercase).
    /// None has a dot, so none is ever reverse-domain either; a switch, not a
    /// `Set`, because building a set costs linkctl ~0.13 M instructions at start.
    public static func isRefused(_ scheme: String) -> Bool {
        switch scheme {
        case "http", "https", "javascript", "data", "file", "vbscript", "about", "blob", "ftp", "ws", "wss": return true
        default: return false
        }
    }

    /// `http` or `https`, in any letter case (RFC 3986 §3.1).
    public static func isWeb(_ scheme: String) -> Bool {
        var s = scheme
        return s.withUTF8 { b in
            guard b.count == 4 || b.count == 5 else { return false }
            let http: [UInt8] = [0x68, 0x74, 0x74, 0x70]
            for i in 0..<4 where b[i] | 0x20 != http[i] { return false }
            return b.count == 4 || b[4] | 0x20 == 0x73
        }
    }

    /// Whether the link `text` is a web link (its scheme `http` or `https`);
    /// false for text that is not a URI reference at all.
    public static func isWebLink(_ text: String) -> Bool {
        isWeb((try? URIReference.split(text))?.scheme ?? "")
    }

    /// A reverse-domain scheme such as `com.example.app` (RFC 8252 §7.1):
    /// two or more dot-separated labels, none empty. (No web or script scheme has a dot.)
    public static func isReverseDomain(_ scheme: String) -> Bool {
        var s = scheme
        return s.withUTF8 { b in
            guard let first = b.first, let last = b.last, first != 0x2E, last != 0x2E else { return false }
            var dots = 0
            var previousDot = false
            for c in b {
                if c == 0x2E {
                    if previousDot { return false }
                    dots += 1
                    previousDot = true
                } else {
                    previousDot = false
                }
            }
            return dots > 0
        }
    }

    /// Whether linkrouter routes links of this scheme at all.
    public static func isRouted(_ scheme: String) -> Bool { isWeb(scheme) || isReverseDomain(scheme) }
}
