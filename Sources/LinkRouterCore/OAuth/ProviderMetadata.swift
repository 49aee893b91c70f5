/// An issuer's metadata (OpenID Connect Discovery 1.0 §3, RFC 8414 §2),
/// reduced to what a public client needs, and checked before any of it is used.
public struct ProviderMetadata: Sendable, Equatable {
    public let issuer: String
    public let authorizationEndpoint: String
    public let tokenEndpoint: String
    public let jwksURI: String
    /// `authorization_response_iss_parameter_supported` (RFC 9207 §3): every callback must then carry `iss`.
    public let issParameterSupported: Bool
    /// `revocation_endpoint` (RFC 7009, RFC 8414 §2): where a sign-out revokes the tokens. Nil: none offered, or one
    /// that breaks the endpoint rules.
    public let revocationEndpoint: String?
    /// `pushed_authorization_request_endpoint` (RFC 9126 §5). Nil: none offered, or one that breaks the endpoint rules.
    public let pushedAuthorizationRequestEndpoint: String?
    /// `require_pushed_authorization_requests` (RFC 9126 §5): a plain authorize URL is refused there.
    public let requirePushedAuthorizationRequests: Bool
    /// `device_authorization_endpoint` (RFC 8628 §4): where a login with no browser here begins. Nil: none offered, or
    /// one that breaks the endpoint rules.
    public let deviceAuthorizationEndpoint: String?
    /// `dpop_signing_alg_values_supported` (RFC 9449 §5.1): nil when the provider lists none (or not as strings).
    public let dpopSigningAlgorithms: [String]?
    /// `end_session_endpoint` (OpenID Connect RP-Initiated Logout 1.0 §2.1): where a sign-out at the provider goes.
    /// Nil: none offered, or one that breaks the endpoint rules.
    public let endSessionEndpoint: String?
    /// `registration_endpoint` (RFC 7591 §3, RFC 8414 §2): where a client registers itself (`ClientRegistration`).
    /// Nil: none offered, or one that breaks the endpoint rules.
    public var registrationEndpoint: String?

    public init(
        issuer: String, authorizationEndpoint: String, tokenEndpoint: String, jwksURI: String,
        issParameterSupported: Bool, revocationEndpoint: String? = nil,
        pushedAuthorizationRequestEndpoint: String? = nil, requirePushedAuthorizationRequests: Bool = false,
        deviceAuthorizationEndpoint: String? = nil,
        dpopSigningAlgorithms: [String]? = nil, endSessionEndpoint: String? = nil
    ) {
        self.endSessionEndpoint = endSessionEndpoint
        self.dpopSigningAlgorithms = dpopSigningAlgorithms
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        self.pushedAuthorizationRequestEndpoint = pushedAuthorizationRequestEndpoint
        self.requirePushedAuthorizationRequests = requirePushedAuthorizationRequests
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.jwksURI = jwksURI
        self.issParameterSupported = issParameterSupported
        self.revocationEndpoint = revocationEndpoint
    }

    /// Where to look, in order: OpenID Connect Discovery §4 (`/.well-known/openid-configuration`
    /// appended to the issuer), then RFC 8414 §3.1 (`/.well-known/oauth-authorization-server`
    /// inserted between the host and the issuer's path).
    public static func discoveryURLs(for issuer: String) -> [String] {
        let trimmed = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        guard let uri = try? URIReference.split(trimmed), let authority = uri.authority else {
            return [trimmed + "/.well-known/openid-configuration"]
        }
        return [
            trimmed + "/.well-known/openid-configuration",
            uri.normalizedScheme + "://" + authority + "/.well-known/oauth-authorization-server" + uri.path,
        ]
    }

    /// Checks the document fetched for `expected`: its `issuer` must be the
    /// very string asked for (Discovery §4.3, RFC 8414 §3.3: a mix-up defence);
    /// the endpoints must be https (http only on a loopback host); PKCE S256
    /// must be among the methods when methods are listed.
    public init(document: JSONValue, expectedIssuer expected: String, from url: String) throws(RouterError) {
        func fail(_ why: String) -> RouterError {
            RouterError(.discoveryFailed, "the metadata of \(expected) at \(url) \(why)")
        }
        guard case .object = document else { throw fail("is not a JSON object") }
        guard let issuer = document["issuer"]?.stringValue else { throw fail("has no issuer") }
        guard issuer == expected else {
            throw fail(
                "names the issuer \"\(PercentEncoding.preview(Substring(issuer)))\", not the one asked for; it must be identical (OpenID Connect Discovery §4.3), so it is not used"
            )
        }
        // An https issuer's endpoints are https too: http on a loopback host is for a provider that is itself on one
        // (a test's, a device's), never something an https issuer's document may point at (issue 36: a sandboxed app's
        // provider could otherwise have the daemon POST chosen fields to the host's loopback services).
        let httpsIssuer = (try? URIReference.split(issuer))?.normalizedScheme == "https"
        func endpoint(_ key: String) throws(RouterError) -> String {
            guard let value = document[key]?.stringValue else { throw fail("has no \(key)") }
            guard SessionPlan.isEndpoint(value, maxLength: 2048) else {
                throw fail(
                    "gives a \(key) that is not an https URL (http only on a loopback host) without fragment or userinfo: \"\(PercentEncoding.preview(Substring(value)))\""
                )
            }
            if httpsIssuer, (try? URIReference.split(value))?.normalizedScheme != "https" {
                throw fail(
                    "gives a \(key) over http while the issuer is https: \"\(PercentEncoding.preview(Substring(value)))\"; an https issuer's endpoints are https"
                )
            }
            return value
        }
        let authorization = try endpoint("authorization_endpoint")
        let token = try endpoint("token_endpoint")
        let jwks = try endpoint("jwks_uri")
        if let methods = document["code_challenge_methods_supported"] {
            guard let list = methods.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
                throw fail("lists code_challenge_methods_supported in a form that is not an array of strings")
            }
            guard list.contains(.string("S256")) else {
                throw fail(
                    "lists code_challenge_methods_supported without S256; PKCE with S256 is required (RFC 9700 §2.1.1), so the provider is refused"
                )
            }
        }
        if let types = document["response_types_supported"]?.arrayValue, !types.contains(.string("code")) {
            throw fail("does not support response_type code, the only flow a public client may use (RFC 9700 §2.1.2)")
        }
        // Optional: a bad one is not used (a sign-out then forgets the tokens here only), and fails no login.
        let revocation = document["revocation_endpoint"] == nil ? nil : try? endpoint("revocation_endpoint")
        // The same for PAR: a bad endpoint is none (with `par=require`, a clear refusal at BeginSession).
        let pushed =
            document["pushed_authorization_request_endpoint"] == nil
            ? nil : try? endpoint("pushed_authorization_request_endpoint")
        let device =
            document["device_authorization_endpoint"] == nil ? nil : try? endpoint("device_authorization_endpoint")
        let endSession = document["end_session_endpoint"] == nil ? nil : try? endpoint("end_session_endpoint")
        let registration = document["registration_endpoint"] == nil ? nil : try? endpoint("registration_endpoint")
        let dpop = document["dpop_signing_alg_values_supported"]?.arrayValue.flatMap { list in
            let names = list.compactMap(\.stringValue)
            return names.count == list.count ? names : nil
        }
        self.init(
            issuer: issuer, authorizationEndpoint: authorization, tokenEndpoint: token, jwksURI: jwks,
            issParameterSupported: document["authorization_response_iss_parameter_supported"] == .bool(true),
            revocationEndpoint: revocation,
            pushedAuthorizationRequestEndpoint: pushed,
            requirePushedAuthorizationRequests: document["require_pushed_authorization_requests"] == .bool(true),
            deviceAuthorizationEndpoint: device, dpopSigningAlgorithms: dpop, endSessionEndpoint: endSession)
        registrationEndpoint = registration
    }
}
