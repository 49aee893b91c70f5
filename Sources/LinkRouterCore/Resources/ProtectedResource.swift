/// A protected resource's metadata (RFC 9728): where a token for it is had
/// (`authorization_servers`), what it takes (`scopes_supported`), checked
/// before any of it is used. A resource named only by its URL (`GetToken`'s
/// `for`, `linkctl token --for URL`) says through it which provider signs its
/// callers in, so nobody needs to know the issuer beforehand.
public struct ProtectedResource: Sendable, Equatable {
    /// The resource identifier, identical to the URL it was looked up for (§3.3).
    public let resource: String
    /// Issuers, in the resource's order.
    public let authorizationServers: [String]
    public let scopesSupported: [String]

    public init(resource: String, authorizationServers: [String], scopesSupported: [String] = []) {
        self.resource = resource
        self.authorizationServers = authorizationServers
        self.scopesSupported = scopesSupported
    }

    /// A resource identifier as `for` takes it: an https URL (http only on a loopback host) with no fragment or
    /// userinfo (RFC 9728 §1.2, RFC 8707 §2).
    public static func check(_ url: String, maxLength: Int) throws(RouterError) -> String {
        try checked(url, maxLength: maxLength, "for takes a resource's URL")
    }

    /// Where a resource's own challenge says its metadata is (`resource_metadata`, RFC 9728 §5.1): a URL by the rule
    /// of a resource's, the document still checked for the resource asked for.
    public static func checkMetadataURL(_ url: String, maxLength: Int) throws(RouterError) -> String {
        try checked(url, maxLength: maxLength, "resource_metadata takes the URL a resource's challenge names")
    }

    /// `url` if it is https (http only on a loopback host), with no fragment or user name; else refused, in words
    /// that begin with `rule`.
    private static func checked(_ url: String, maxLength: Int, _ rule: String) throws(RouterError) -> String {
        guard let uri = try? URIReference.strict(url, maxLength: maxLength), IssuerScheme.allows(uri),
            uri.authority != nil, uri.fragment == nil, !uri.hasUserinfo
        else {
            throw .invalid(
                "\(rule): https (http only on a loopback host), with no fragment or user name, not \(PercentEncoding.preview(Substring(url)))"
            )
        }
        return url
    }

    /// Where the metadata of `resource` is (RFC 9728 §3.1): `/.well-known/oauth-protected-resource` between the host
    /// and the path (a lone `/` path dropped), the query kept.
    public static func metadataURL(for resource: String) -> String? {
        guard let uri = try? URIReference.split(resource), let authority = uri.authority else { return nil }
        let path = uri.path == "/" ? "" : uri.path
        return uri.normalizedScheme + "://" + authority + "/.well-known/oauth-protected-resource" + path
            + (uri.query.map { "?" + $0 } ?? "")
    }

    /// The document fetched from `url` for `expected`. Its `resource` must be the very URL asked for (§3.3: a
    /// document naming another is a mix-up, refused); its authorization servers issuers by the same rule as an
    /// account's, https for an https resource (an http provider on this machine cannot speak for a resource
    /// elsewhere).
    public init(document: JSONValue, expected: String, from url: String) throws(RouterError) {
        func fail(_ why: String) -> RouterError {
            RouterError(.discoveryFailed, "the resource metadata of \(expected) at \(url) \(why)")
        }
        guard case .object = document else { throw fail("is not a JSON object") }
        guard let resource = document["resource"]?.stringValue else { throw fail("has no resource (RFC 9728 §2)") }
        guard resource == expected else {
            throw fail(
                "names the resource \"\(PercentEncoding.preview(Substring(resource)))\", not the one asked for; it must be identical (RFC 9728 §3.3), so no token is asked for it"
            )
        }
        guard let list = document["authorization_servers"]?.arrayValue, !list.isEmpty else {
            throw fail("names no authorization_servers: it does not say where to sign in")
        }
        let https = (try? URIReference.split(expected))?.normalizedScheme == "https"
        var servers: [String] = []
        for entry in list {
            guard let issuer = entry.stringValue, (try? SessionPlan.checkIssuer(issuer, maxLength: 2048)) != nil
            else {
                throw fail(
                    "lists an authorization server that is not an issuer URL (https, or http on a loopback host)")
            }
            if https, (try? URIReference.split(issuer))?.normalizedScheme != "https" {
                throw fail(
                    "lists the authorization server \(issuer) over http for an https resource; tokens for it come from https providers only"
                )
            }
            servers.append(issuer)
        }
        let scopes = document["scopes_supported"]?.arrayValue?.compactMap(\.stringValue) ?? []
        self.init(
            resource: resource, authorizationServers: servers, scopesSupported: scopes.filter(OAuthText.isScope))
    }
}
