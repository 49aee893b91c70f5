/// What the daemon needs to turn a session's code into tokens (the
/// `exchange` option): where to post it and whose keys sign the ID token.
/// Taken from the issuer's metadata when the session began, so a restart
/// can finish an exchange without asking the provider again.
public struct TokenExchange: Sendable, Equatable {
    public let clientID: String
    public let tokenEndpoint: String
    public let jwksURI: String
    /// The scope asked for `openid`: the response must then carry an ID token (OpenID Connect Core §3.1.3.3).
    public let expectsIDToken: Bool
    /// The account whose login this is: its tokens are kept (`Router.keepTokens`).
    public let account: String?
    /// The account keeps its tokens in memory only (`store=memory`).
    public let accountInMemory: Bool
    /// The key the tokens are bound to (RFC 9449), until the session ends: a secret, kept like the PKCE verifier.
    public private(set) var dpop: DPoPBinding?

    public init(
        clientID: String, tokenEndpoint: String, jwksURI: String, expectsIDToken: Bool, account: String? = nil,
        accountInMemory: Bool = false,
        dpop: DPoPBinding? = nil
    ) {
        self.dpop = dpop
        self.clientID = clientID
        self.tokenEndpoint = tokenEndpoint
        self.jwksURI = jwksURI
        self.expectsIDToken = expectsIDToken
        self.account = account
        self.accountInMemory = accountInMemory
    }

    /// The same exchange bound to `dpop`'s key.
    func binding(_ dpop: DPoPBinding?) -> TokenExchange {
        var e = self
        e.dpop = dpop
        return e
    }

    /// One line per field, for the store (no field can hold a line break: each was checked as a URI or printable
    /// ASCII).
    public var stored: String {
        [clientID, tokenEndpoint, jwksURI, expectsIDToken ? "openid" : "-"].joined(separator: "\n")
    }

    public init?(stored: String) {
        let f = stored.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard f.count == 4 else { return nil }
        self.init(clientID: f[0], tokenEndpoint: f[1], jwksURI: f[2], expectsIDToken: f[3] == "openid")
    }
}
