/// Pushed authorization requests (RFC 9126): the authorization request goes
/// to the provider in a POST first, and the browser opens the authorize
/// endpoint with only `client_id` and the `request_uri` the provider gave
/// back, so nothing of the request is in the URL bar, the history or a
/// referrer, and the provider has seen it whole before the person does.
public enum PushedAuthorization {
    /// The `par` option (`BeginSession`, an account's file): `auto` pushes when the issuer's
    /// metadata lists `pushed_authorization_request_endpoint`; `require` always (a provider
    /// that offers none is an error); `off` never (a provider that requires it is then an error).
    public typealias Mode = FeatureMode

    /// The endpoint a builder-mode login pushes to, by `mode` and the issuer's metadata (nil: no push).
    static func endpoint(_ mode: Mode, metadata: ProviderMetadata?) throws(RouterError) -> String? {
        let offered = metadata?.pushedAuthorizationRequestEndpoint
        let required = metadata?.requirePushedAuthorizationRequests == true
        switch mode {
        case .off:
            if required {
                throw .invalid(
                    "the provider requires pushed authorization requests (require_pushed_authorization_requests, RFC 9126 §5); par=off cannot sign in there"
                )
            }
            return nil
        case .auto:
            if required && offered == nil {
                throw .invalid(
                    "the provider requires pushed authorization requests but its metadata lists no usable pushed_authorization_request_endpoint"
                )
            }
            return offered
        case .require:
            guard let offered else {
                throw .invalid(
                    metadata == nil
                        ? "par=require needs the issuer's metadata: give issuer (the pushed_authorization_request_endpoint comes from it)"
                        : "par=require, but the provider's metadata lists no usable pushed_authorization_request_endpoint (RFC 9126 §5)"
                )
            }
            return offered
        }
    }

    /// What the browser opens after a push (RFC 9126 §4): the authorize
    /// endpoint with `client_id` and `request_uri`, nothing else.
    static func browserURL(endpoint: URIReference, clientID: String, requestURI: String) -> String {
        AuthorizeURL.withQuery(endpoint, [("client_id", clientID), ("request_uri", requestURI)])
    }
}

/// The request an `Operation.push` posts: the authorization request's
/// parameters, form-encoded, to the provider's PAR endpoint.
public struct PushRequest: Sendable, Equatable {
    public struct Field: Sendable, Equatable {
        public let name: String
        public let value: String
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }
    public let endpoint: String
    public let parameters: [Field]
    /// The login's DPoP key: the push carries a proof of it, which binds the code (RFC 9449 §10.1).
    public let dpop: DPoPKey?

    public init(endpoint: String, parameters: [Field], dpop: DPoPKey? = nil) {
        self.endpoint = endpoint
        self.parameters = parameters
        self.dpop = dpop
    }
    /// For the log and errors: never the parameters (they hold the state, nonce and challenge).
    public var logTag: String { "the pushed authorization request to \(endpoint)" }
}
