/// Which URI schemes linkrouter takes: the one rule for `linkctl open`,
/// `Route`, callback URIs and `linkctl register`.
public enum SchemeRule {
    /// Web and script schemes that are never an app's own scheme.
    public static let refused: Set<String> = ["http", "https", "javascript", "data", "file", "vbscript", "about", "blob", "ftp", "ws", "wss"]

    /// `http` or `https` (the scheme lowercased, RFC 3986 §3.1).
    public static func isWeb(_ scheme: String) -> Bool {
        let s = ASCII.lowercased(scheme)
        return s == "http" || s == "https"
    }

    /// A reverse-domain scheme such as `com.example.app` (RFC 8252 §7.1):
    /// two or more dot-separated labels, none empty, and not a web or script scheme.
    public static func isReverseDomain(_ scheme: String) -> Bool {
        let s = ASCII.lowercased(scheme)
        let labels = s.split(separator: ".", omittingEmptySubsequences: false)
        return !refused.contains(s) && labels.count >= 2 && labels.allSatisfy { !$0.isEmpty }
    }

    /// Whether linkrouter routes links of this scheme at all.
    public static func isRouted(_ scheme: String) -> Bool { isWeb(scheme) || isReverseDomain(scheme) }
}
