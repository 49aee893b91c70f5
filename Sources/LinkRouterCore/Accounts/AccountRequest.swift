/// An account's options as declared (`AddAccount`, `linkctl account add`, a
/// key file under `accounts/` or `/etc/linkrouter/accounts.d/`), before
/// `Account.make` checks them. One table (`AccountRequest.options`) names
/// them for D-Bus, linkctl's flags, the key files and the docs.
public struct AccountRequest: Sendable, Equatable {
    public var issuer: String?
    public var clientID: String?
    /// The name a client linkrouter registers goes by (RFC 7591 `client_name`).
    public var clientName: String?
    /// Written by the daemon for a client it registered: `managed` or `unmanaged` (`Account.Registered`).
    public var registered: String?
    /// A protected resource the account is for (RFC 9728, `ResourceLookup`): its metadata gives the issuer, the
    /// resource and the scopes; never written to the file (those are).
    public var forResource: String?
    /// An initial access token for the provider's registration endpoint (RFC 7591 §3); spent, never written down.
    public var registrationToken: String?
    public var scope: String?
    public var redirectURI: String?
    public var audience: String?
    public var resource: String?
    public var extraParams: [String: String] = [:]
    /// Which token a consumer gets by default: `access` or `id`.
    public var token: String?
    /// Where the tokens live: `keyring` (the Secret Service) or `memory` (the daemon's life).
    public var store: String?
    /// Seconds of life a token handed out must have left.
    public var minValid: UInt32?
    /// When its tokens are refreshed: `ahead` (in the background, before `min_valid` runs out) or `on-demand`.
    public var refresh: String?
    /// Where new tokens the keyring has not taken go when the daemon stops: `runtime` or `drop`.
    public var unsaved: String?
    /// The account picked among several of the caller's at its issuer when asked by issuer.
    public var isDefault: Bool?
    /// A host program's token of it only after the person's yes (`ConsentPrompt`).
    public var confirm: Bool?
    public var par: String?
    /// Whether its tokens are bound to a key the daemon holds (RFC 9449): `auto`, `require` or `off`.
    public var dpop: String?
    /// Where a device login begins when the provider's metadata does not say (RFC 8628 §4).
    public var deviceAuthorizationEndpoint: String?
    /// Where a sign-out revokes the tokens when the provider's metadata does not say (RFC 7009).
    public var revocationEndpoint: String?
    /// The user name a registry or a forge gets with the token.
    public var username: String?
    /// Registry hosts whose docker credentials this account answers.
    public var registries: [String] = []
    /// URL prefixes whose git credentials this account answers (`linkctl credential git` with no `--account`).
    public var gitURLs: [String] = []

    public init() {}
}
