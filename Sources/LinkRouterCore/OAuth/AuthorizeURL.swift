/// Building the authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3,
/// OpenID Connect Core §3.1.2.1) and reading one the app's backend built.
public enum AuthorizeURL {
    /// Parameters the daemon sets itself; an app may not set them through `extra_params`.
    public static let reservedParameters: Set<String> = [
        "response_type", "client_id", "redirect_uri", "scope", "state", "nonce",
        "code_challenge", "code_challenge_method", "requested_flow", "app_callback_uri",
        // RFC 9126 §2.1: never in a pushed request; the daemon alone puts it in the URL after a push.
        "request_uri",
        // RFC 9449 §10: the daemon's own key's thumbprint, or none.
        "dpop_jkt",
    ]

    /// Checks an authorization endpoint: https, or http on loopback for local providers.
    public static func parseEndpoint(_ text: String, role: String, maxLength: Int) throws(RouterError) -> URIReference {
        let uri: URIReference
        do { uri = try URIReference.strict(text, maxLength: maxLength) } catch {
            throw .invalid("\(role) is not a valid URI: \(error.message)")
        }
        let scheme = uri.normalizedScheme
        let host = uri.host.map(ASCII.lowercased) ?? ""
        guard scheme == "https" || (scheme == "http" && CallbackURI.loopbackHosts.contains(host)) else {
            throw .invalid(
                "\(role) \"\(PercentEncoding.preview(Substring(text)))\" must use https (http only on a loopback address, for a local provider)"
            )
        }
        guard !host.isEmpty else { throw .invalid("\(role) has no host") }
        guard !uri.hasUserinfo else {
            throw .invalid("\(role) carries userinfo (\"user@\"), which an authorization endpoint never needs")
        }
        guard uri.fragment == nil else {
            throw .invalid("\(role) has a fragment; an authorization endpoint has none (RFC 6749 §3.1)")
        }
        return uri
    }

    /// `scheme://authority` of a URI, lowercased where RFC 3986 says case does not matter.
    static func origin(of uri: URIReference) -> String {
        uri.normalizedScheme + "://" + ASCII.lowercased(uri.authority ?? "")
    }

    /// The authorization request's parameters for a session the daemon builds, in order.
    static func parameters(
        clientID: String, redirectURI: String, scope: String?, state: String, nonce: String, codeChallenge: String?,
        appCallbackURI: String?,
        extra: [String: String]
    ) -> [(String, String)] {
        var pairs: [(String, String)] = [
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI),
        ]
        if let scope { pairs.append(("scope", scope)) }
        pairs.append(("state", state))
        pairs.append(("nonce", nonce))
        if let codeChallenge {
            pairs.append(("code_challenge", codeChallenge))
            pairs.append(("code_challenge_method", "S256"))
        }
        if let appCallbackURI {
            pairs.append(("requested_flow", "app_to_app"))
            pairs.append(("app_callback_uri", appCallbackURI))
        }
        for key in extra.keys.sorted() { pairs.append((key, extra[key]!)) }
        return pairs
    }

    /// `endpoint` with `pairs` added to its query (after any it has of its own).
    static func withQuery(_ endpoint: URIReference, _ pairs: [(String, String)]) -> String {
        let query = pairs.map { PercentEncoding.encode($0.0) + "=" + PercentEncoding.encode($0.1) }.joined(
            separator: "&")
        var base = endpoint.original
        if let q = endpoint.query {
            base += q.isEmpty ? "" : "&"
        } else {
            base += "?"
        }
        return base + query
    }
}
