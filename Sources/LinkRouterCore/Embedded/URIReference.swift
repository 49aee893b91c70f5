/// An absolute URI split into its RFC 3986 §3 components, nothing decoded.
///
/// Splitting follows RFC 3986 Appendix B exactly, so the pieces compared later
/// are the bytes that arrived. `strict()` adds the checks a callback must pass.
public struct URIReference: Sendable, Equatable {
    /// The scheme as written (compare it with `normalizedScheme`).
    public let scheme: String
    /// The authority after `//`, or nil when the URI has no `//`.
    public let authority: String?
    public let path: String
    /// The raw query without its `?`, or nil when there is no `?`.
    public let query: String?
    /// The raw fragment without its `#`, or nil when there is no `#`.
    public let fragment: String?
    /// The whole string, byte for byte as given.
    public let original: String

    /// Scheme names are case-insensitive (RFC 3986 §3.1).
    public var normalizedScheme: String { ASCII.lowercased(scheme) }

    /// Splits an absolute URI. Refuses relative references, so `--help` or
    /// `cb?code=…` can never pass for a URL.
    public static func split(_ text: String) throws(RouterError) -> URIReference {
        let u = Array(text.utf8)
        var i = 0
        while i < u.count, u[i] != 0x3A, u[i] != 0x2F, u[i] != 0x3F, u[i] != 0x23 { i += 1 }
        guard i < u.count, u[i] == 0x3A, i > 0 else {
            throw .invalid("\"\(PercentEncoding.preview(Substring(text)))\" is not an absolute URI: it has no scheme")
        }
        let schemeBytes = u[0..<i]
        guard ASCII.isAlpha(schemeBytes.first!),
            schemeBytes.allSatisfy({ ASCII.isAlpha($0) || ASCII.isDigit($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E })
        else {
            throw .invalid(
                "\"\(PercentEncoding.preview(Substring(text)))\" has an invalid scheme (RFC 3986 §3.1: a letter, then letters, digits, \"+\", \"-\" or \".\")"
            )
        }
        i += 1
        var authority: String?
        if i + 1 < u.count, u[i] == 0x2F, u[i + 1] == 0x2F {
            var j = i + 2
            while j < u.count, u[j] != 0x2F, u[j] != 0x3F, u[j] != 0x23 { j += 1 }
            authority = String(decoding: u[(i + 2)..<j], as: UTF8.self)
            i = j
        }
        var j = i
        while j < u.count, u[j] != 0x3F, u[j] != 0x23 { j += 1 }
        let path = String(decoding: u[i..<j], as: UTF8.self)
        var query: String?
        if j < u.count, u[j] == 0x3F {
            var k = j + 1
            while k < u.count, u[k] != 0x23 { k += 1 }
            query = String(decoding: u[(j + 1)..<k], as: UTF8.self)
            j = k
        }
        var fragment: String?
        if j < u.count, u[j] == 0x23 {
            fragment = String(decoding: u[(j + 1)...], as: UTF8.self)
        }
        return URIReference(
            scheme: String(decoding: schemeBytes, as: UTF8.self), authority: authority, path: path,
            query: query, fragment: fragment, original: text)
    }

    /// The checks a callback must pass before anything reads its parameters:
    /// bounded length, only URI characters (no space, control or non-ASCII byte),
    /// and every `%` a valid escape.
    public static func strict(_ text: String, maxLength: Int) throws(RouterError) -> URIReference {
        let count = text.utf8.count
        guard count <= maxLength else {
            throw RouterError(
                .limitsExceeded, "the URI is \(count) bytes long; callbacks are limited to \(maxLength) bytes")
        }
        for b in text.utf8 where !ASCII.isURIByte(b) {
            let what: String
            switch b {
            case 0x00: what = "a NUL byte"
            case 0x20: what = "a raw space"
            case 0x09: what = "a tab"
            case 0x0A, 0x0D: what = "a line break"
            case 0x01..<0x20, 0x7F: what = "a control character"
            case 0x80...: what = "a non-ASCII byte (it must be percent-encoded)"
            default: what = "the character \"\(String(decoding: [b], as: UTF8.self))\" (it must be percent-encoded)"
            }
            throw .invalid("the URI contains \(what); a callback URI holds only RFC 3986 characters")
        }
        guard PercentEncoding.isWellFormed(Substring(text)) else {
            throw .invalid("the URI has invalid percent-encoding: every \"%\" must be followed by two hex digits")
        }
        return try split(text)
    }

    /// The authority's host, without userinfo or port (for https look-alike checks).
    public var host: String? {
        guard let authority else { return nil }
        var a = Substring(authority)
        if let at = a.lastIndex(of: "@") { a = a[a.index(after: at)...] }
        if a.hasPrefix("[") {
            guard let close = a.firstIndex(of: "]") else { return String(a) }
            return String(a[...close])
        }
        if let colon = a.lastIndex(of: ":") { a = a[..<colon] }
        return String(a)
    }

    /// The explicit port, if the authority has one.
    public var port: Substring? {
        guard let authority else { return nil }
        var a = Substring(authority)
        if let at = a.lastIndex(of: "@") { a = a[a.index(after: at)...] }
        let hostEnd: Substring.Index
        if let close = a.lastIndex(of: "]") { hostEnd = close } else { hostEnd = a.startIndex }
        guard let colon = a[hostEnd...].lastIndex(of: ":") else { return nil }
        return a[a.index(after: colon)...]
    }

    /// True when the authority carries `user@` (never acceptable in a callback or resume URI).
    public var hasUserinfo: Bool { authority?.contains("@") ?? false }

    /// The URI without its fragment.
    public var withoutFragment: String {
        guard let f = fragment else { return original }
        return String(decoding: original.utf8.dropLast(f.utf8.count + 1), as: UTF8.self)
    }
}
