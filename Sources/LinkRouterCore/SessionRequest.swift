/// `BeginSession`'s options after the D-Bus adapter has checked their types.
/// Field names follow the option keys in docs/dbus-api.md.
public struct SessionRequest: Sendable, Equatable {
    public var authorizationEndpoint: String?
    public var clientID: String?
    public var redirectURI: String?
    public var scope: String?
    public var extraParams: [String: String] = [:]
    public var openBrowser: Bool = true
    public var browser: String?
    public var ttl: UInt32?
    /// Adopt mode: an authorize URL the app's backend built.
    public var authorizeURL: String?
    public var appCallbackURI: String?
    public var resume: String?
    public var resumeHosts: [String] = []
    public var resumePathPrefix: String?
    public var claimToken: String?
    /// Client-held PKCE: the S256 challenge of a verifier the daemon never sees.
    public var codeChallenge: String?
    public var issuer: String?
    public var requireIssuer: Bool = false
    /// `auto` (default), `require` or `off`: whether the authorization request is pushed first (RFC 9126).
    public var par: String?
    /// Exchange the code for tokens and verify the ID token (needs `issuer`).
    public var exchange: Bool = false
    /// An account's login (`linkctl login NAME`): the daemon fills the
    /// provider options from the account (`use(_:)`) and keeps the tokens.
    public var account: String?
    /// Set with the account: where it keeps its tokens; not an option.
    public var accountStore: Account.Storage?
    /// The issuer's metadata, once the daemon fetched it (`SessionPlan.needsDiscovery`); not an option.
    public var discovered: ProviderMetadata?
    /// A device login (`BeginDeviceLogin`, RFC 8628): no browser here, no callback; not an option.
    public var device = false
    /// Set with the account: its device authorization endpoint, where the metadata lists none; not an option.
    public var deviceAuthorizationEndpoint: String?
    /// Set with the account: whether its tokens are bound to a key the daemon holds (RFC 9449); not an option.
    public var dpop: DPoPBinding.Mode?
    /// A sign-out at the provider (`BeginLogout`, OpenID Connect RP-Initiated Logout): the browser goes to
    /// its `end_session_endpoint` and comes back to the account's redirect by `state`; not an option.
    public var logout = false
    /// The account's ID token, named to the provider in a sign-out (`id_token_hint`); not an option.
    public var idTokenHint: String?

    public init() {}

    /// The first option given that only a browser login has (a device login
    /// refuses it), or nil: the one list for the daemon's refusal and for
    /// linkctl's choice of the device grant. An account brings its own `par`
    /// and parameters (`use`); only a caller's count.
    public var browserOnlyOption: String? {
        let given: [(String, Bool)] = [
            ("authorize_url", authorizeURL != nil), ("code_challenge", codeChallenge != nil),
            ("app_callback_uri", appCallbackURI != nil),
            ("resume", resume != nil), ("resume_hosts", !resumeHosts.isEmpty),
            ("resume_path_prefix", resumePathPrefix != nil),
            ("browser", browser != nil), ("authorization_endpoint", authorizationEndpoint != nil),
            ("par", account == nil && par != nil), ("extra_params", account == nil && !extraParams.isEmpty),
        ]
        return given.first(where: \.1)?.0
    }
}
