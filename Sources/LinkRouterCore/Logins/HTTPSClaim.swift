/// An app's claim on https links (the Linux counterpart of universal links
/// and App Links): `X-LinkRouter-Claims=https://example.com/app/;` in its
/// desktop entry. A claim names a scheme, a host and a path prefix that ends
/// at a path segment boundary (`/`); `https://example.com/` claims the host
/// explicitly. No query, no fragment, no userinfo, no wildcard.
public struct HTTPSClaim: Sendable, Equatable {
    public let prefix: String
    /// Lowercase host, and the port as written ("" for the default 443).
    public let host: String
    public let port: String
    public let path: String
    public let app: LinkApp

    /// Checks one claim as written in a desktop entry.
    public static func parse(_ text: String, app: LinkApp) throws(RouterError) -> HTTPSClaim {
        let uri: URIReference
        do { uri = try URIReference.strict(text, maxLength: 2048) } catch {
            throw .invalid(
                "the claim \"\(PercentEncoding.preview(Substring(text)))\" is not a valid URI: \(error.message)")
        }
        guard uri.normalizedScheme == "https" else {
            throw .invalid(
                "the claim \(text) is not https; only https links are claimed (an app's own scheme is declared with MimeType=x-scheme-handler/…)"
            )
        }
        guard let host = uri.host, !host.isEmpty, !host.contains("*") else {
            throw .invalid("the claim \(text) names no host; a claim covers a host's links only when it names the host")
        }
        guard !uri.hasUserinfo, uri.query == nil, uri.fragment == nil else {
            throw .invalid(
                "the claim \(text) has userinfo, a query or a fragment; a claim is a scheme, a host and a path prefix")
        }
        guard uri.path.hasPrefix("/"), uri.path.hasSuffix("/") else {
            throw .invalid(
                "the claim \(text) does not end at a path segment boundary; end it with \"/\" (https://example.com/app/)"
            )
        }
        guard !ClaimPath.hasDotSegments(uri.path) else {
            throw .invalid("the claim \(text) has a \".\" or \"..\" path segment or an encoded slash")
        }
        return HTTPSClaim(
            prefix: text, host: ASCII.lowercased(host), port: String(uri.port ?? ""), path: uri.path, app: app)
    }

    /// Whether the claim covers a (strictly parsed) https link: same host and
    /// port, and the link's path under the prefix, byte for byte. A path with
    /// dot segments or encoded slashes is never covered: the browser takes it.
    public func covers(_ uri: URIReference) -> Bool {
        guard uri.normalizedScheme == "https", let h = uri.host, ASCII.lowercased(h) == host else { return false }
        let p = String(uri.port ?? "")
        guard p == port || (p == "443" && port.isEmpty) || (p.isEmpty && port == "443") else { return false }
        return uri.path.hasPrefix(path) && !ClaimPath.hasDotSegments(uri.path)
    }
}

/// Paths a claim can be fooled by: `/app/../admin` is not under `/app/`.
enum ClaimPath {
    static func hasDotSegments(_ path: String) -> Bool {
        let lower = ASCII.lowercased(path)
        if lower.contains("%2f") || lower.contains("%2e") || lower.contains("%5c") { return true }
        return path.split(separator: "/", omittingEmptySubsequences: false).contains { $0 == "." || $0 == ".." }
    }
}
