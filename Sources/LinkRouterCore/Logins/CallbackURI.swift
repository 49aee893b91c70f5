/// A callback URI an app registered (`redirect_uri` or `app_callback_uri`),
/// checked against the three styles STX and RFC 8252 §7 allow.
///
/// A class: immutable, and shared by every session that registered the same
/// URI, so a session holds a reference rather than a copy of its parts.
public final class CallbackURI: Sendable, Equatable {
    /// How the callback reaches the daemon.
    public enum Style: String, Sendable, Equatable {
        /// `com.example.app:/callback`, opened through `xdg-open` → `linkctl open`.
        case customScheme = "custom-scheme"
        /// `https://example.com/cb`, caught only when linkrouter is the https handler.
        case claimedHTTPS = "claimed-https"
        /// `http://127.0.0.1/cb`, answered by the daemon's own listener on any port.
        case loopback = "loopback"
    }

    public let uri: URIReference
    public let style: Style
    /// The URI's own query, which every callback must carry unchanged.
    public let ownQuery: [QueryParameters.Pair]
    /// What candidate callbacks are indexed by: the parts that must match for
    /// a URI to be this callback at all (a loopback callback matches on any port).
    public let matchKey: String
    /// Dictionary keys of the URI and of its match key, hashed once for every session that shares this callback.
    let key: ByteKey
    let matchByteKey: ByteKey

    init(uri: URIReference, style: Style, ownQuery: [QueryParameters.Pair]) {
        self.uri = uri
        self.style = style
        self.ownQuery = ownQuery
        matchKey = Self.matchKey(for: uri, loopback: style == .loopback)
        key = ByteKey(uri.original)
        matchByteKey = ByteKey(matchKey)
    }

    /// The URI as the app registered it (for loopback, with the bound port once known).
    public var string: String { uri.original }

    public static func == (a: CallbackURI, b: CallbackURI) -> Bool { a.string == b.string }

    /// Response parameters a registered URI may not carry itself.
    static let responseParameters: Set<String> = [
        "state", "code", "error", "error_description", "error_uri", "iss", "resume_uri",
    ]
    static let loopbackHosts = Set(IssuerScheme.loopbackHosts)

    /// Checks `text` against the callback rules; `role` names the option in messages.
    public static func parse(_ text: String, role: String, maxLength: Int = 2048) throws(RouterError) -> CallbackURI {
        let uri: URIReference
        do { uri = try URIReference.strict(text, maxLength: maxLength) } catch {
            throw .invalid(
                "\(role) \"\(PercentEncoding.preview(Substring(text)))\" is not a valid URI: \(error.message)")
        }
        if uri.fragment != nil {
            throw .invalid("\(role) has a fragment (\"#…\"); a redirect URI has no fragment (RFC 6749 §3.1.2)")
        }
        let scheme = uri.normalizedScheme
        let style: Style
        switch scheme {
        case "https":
            guard let host = uri.host, !host.isEmpty else {
                throw .invalid("\(role) \"\(text)\" has no host; an https callback names the domain it is claimed on")
            }
            guard !uri.hasUserinfo else {
                throw .invalid("\(role) \"\(text)\" carries userinfo (\"user@\"); a callback never does")
            }
            if uri.port?.isEmpty == true {
                throw .invalid("\(role) \"\(text)\" has an empty port after \":\"")
            }
            style = .claimedHTTPS
        case "http":
            guard let host = uri.host.map(ASCII.lowercased), loopbackHosts.contains(host), !uri.hasUserinfo else {
                throw .invalid(
                    "\(role) \"\(text)\" uses http on a host that is not loopback; http is accepted only for http://127.0.0.1, http://[::1] or http://localhost (RFC 8252 §7.3)"
                )
            }
            if let port = uri.port,
                port.isEmpty || !port.utf8.allSatisfy(ASCII.isDigit) || port.utf8.count > 5 || Int(port)! > 65535
            {
                throw .invalid("\(role) \"\(text)\" has an invalid port")
            }
            style = .loopback
        default:
            if SchemeRule.isRefused(scheme) {
                throw .invalid(
                    "\(role) uses the scheme \"\(scheme)\", which is never an app's own scheme; use a reverse-domain scheme such as com.example.app"
                )
            }
            guard SchemeRule.isReverseDomain(scheme) else {
                throw .invalid(
                    "\(role) uses the scheme \"\(scheme)\", which is not reverse-domain; a custom scheme must contain a dot, such as com.example.app (RFC 8252 §7.1)"
                )
            }
            style = .customScheme
        }
        if style != .customScheme && !uri.path.hasPrefix("/") {
            throw .invalid("\(role) \"\(text)\" has no path; give the callback path, such as /callback")
        }
        if style == .customScheme && uri.authority == nil && uri.path.isEmpty {
            throw .invalid("\(role) \"\(text)\" has nothing after the scheme; give a path, such as \(scheme):/callback")
        }
        let own = try QueryParameters.parse(uri.query)
        for pair in own.pairs where responseParameters.contains(pair.name) {
            throw .invalid(
                "\(role) carries \"\(pair.name)\" in its own query; that name is reserved for the authorization response"
            )
        }
        return CallbackURI(uri: uri, style: style, ownQuery: own.pairs)
    }

    /// Whether `scheme` may be registered as an app's own: valid RFC 3986
    /// syntax and `SchemeRule.isReverseDomain`.
    public static func isCustomScheme(_ scheme: String) -> Bool {
        guard let uri = try? URIReference.split(scheme + ":/callback"), uri.scheme == scheme else { return false }
        return SchemeRule.isReverseDomain(scheme)
    }

    /// For loopback: the host with any letter case folded (`localhost` and `LOCALHOST` are one host).
    public var loopbackHost: String? { style == .loopback ? uri.host.map(ASCII.lowercased) : nil }

    /// For loopback: the port written in the URI, 0 when none was given.
    public var loopbackPort: Int {
        guard style == .loopback, let p = uri.port, let n = Int(p) else { return 0 }
        return n
    }

    /// The same loopback callback with the port the daemon bound filled in,
    /// its host exactly as the app wrote it (a provider that registered
    /// `http://localhost/callback` gets `localhost` back, not `127.0.0.1`).
    public func bound(port: Int) -> CallbackURI {
        var s = uri.scheme + "://" + (uri.host ?? "") + ":" + String(port) + uri.path
        if let q = uri.query { s += "?" + q }
        return try! CallbackURI.parse(s, role: "redirect_uri")
    }

    static func matchKey(for uri: URIReference, loopback: Bool) -> String {
        let authority = loopback ? (uri.host.map(ASCII.lowercased) ?? "") : (uri.authority.map { "//" + $0 } ?? "")
        return uri.normalizedScheme + ":" + authority + uri.path
    }
}
