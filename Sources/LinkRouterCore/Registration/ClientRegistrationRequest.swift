/// What linkrouter registers itself as at a provider (RFC 7591 §2, §3.1): a
/// public native client (`token_endpoint_auth_method` `none`, RFC 8252 §8.4)
/// with the account's one redirect, and the grants an account lives on — the
/// code, its refresh, and the device grant where the provider has one. The
/// provider's `grant_types_supported` is not read: it may omit
/// `refresh_token` while granting it (Glewlwyd does), and an account without a
/// refresh token would ask for a sign-in every hour.
public struct ClientRegistrationRequest: Sendable, Equatable {
    /// The provider's `registration_endpoint`.
    public let endpoint: String
    /// The initial access token the provider's administrator gave (RFC 7591 §3), sent as a Bearer token; never logged.
    public let initialAccessToken: String?
    public let clientName: String
    /// The exact redirect, a loopback one with its port (providers may match ports exactly).
    public let redirectURI: String
    public let grantTypes: [String]
    /// The scope the account asks for (RFC 7591 §2 `scope`: what the client may ask).
    public let scope: String

    public init(
        endpoint: String, initialAccessToken: String?, clientName: String, redirectURI: String, grantTypes: [String],
        scope: String
    ) {
        self.endpoint = endpoint
        self.initialAccessToken = initialAccessToken
        self.clientName = clientName
        self.redirectURI = redirectURI
        self.grantTypes = grantTypes
        self.scope = scope
    }

    /// The grants asked for at a provider with `metadata` (and the account's own device endpoint, if it names one).
    static func grantTypes(_ metadata: ProviderMetadata, deviceEndpoint: String?) -> [String] {
        let device = metadata.deviceAuthorizationEndpoint != nil || deviceEndpoint != nil
        return ["authorization_code", "refresh_token"] + (device ? [DeviceGrant.grantType] : [])
    }

    /// The client's metadata as sent (RFC 7591 §2), in a fixed order.
    public var document: JSONValue {
        .object([
            ("client_name", .string(clientName)),
            ("application_type", .string("native")),
            ("token_endpoint_auth_method", .string("none")),
            ("redirect_uris", .array([.string(redirectURI)])),
            ("grant_types", .array(grantTypes.map { .string($0) })),
            ("response_types", .array([.string("code")])),
            ("scope", .string(scope)),
        ])
    }

    /// The name a client registers under when the account names none: what the person sees on the provider's
    /// consent page and in its list of clients.
    public static func defaultClientName(host: String) -> String {
        host.isEmpty ? "linkrouter" : "linkrouter on \(host)"
    }
}
