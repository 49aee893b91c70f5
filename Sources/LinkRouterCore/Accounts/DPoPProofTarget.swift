/// `htu` (RFC 9449 §4.2): the request's URI without its query and fragment.
public enum DPoPProofTarget {
    public static func uri(_ url: String) -> String { String(url.prefix { $0 != "?" && $0 != "#" }) }
}
