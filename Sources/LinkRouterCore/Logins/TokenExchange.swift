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
    /// What the sign-in was asked to be (`acr_values`, `max_age`): the ID token must say it was.
    public let stepUp: StepUp?

    public init(
        clientID: String, tokenEndpoint: String, jwksURI: String, expectsIDToken: Bool, account: String? = nil,
        accountInMemory: Bool = false,
        dpop: DPoPBinding? = nil, stepUp: StepUp? = nil
    ) {
        self.dpop = dpop
        self.stepUp = stepUp
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

    /// The schema 2 store's `exchange` column (one line per field), read by its migration only.
    public init?(schema2 stored: String) {
        let f = stored.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard f.count == 4 else { return nil }
        self.init(clientID: f[0], tokenEndpoint: f[1], jwksURI: f[2], expectsIDToken: f[3] == "openid")
    }
}

// MARK: The stored form

extension TokenExchange {
    /// Its lines in a login's stored value (`StoredForm`), for every kind of login that has one.
    static let storedKeys = [
        "exchange_client_id", "exchange_token_endpoint", "exchange_jwks_uri", "exchange_openid", "exchange_account",
        "exchange_account_memory", "exchange_dpop", "exchange_acr_values", "exchange_max_age",
    ]

    /// Its lines, at `base` and after.
    func write(_ w: inout StoredWriter, at base: Int) {
        w.add(base, clientID)
        w.add(base + 1, tokenEndpoint)
        w.add(base + 2, jwksURI)
        w.flag(base + 3, expectsIDToken)
        w.add(base + 4, account)
        w.flag(base + 5, accountInMemory)
        w.add(base + 6, dpop?.stored)
        w.add(base + 7, stepUp?.stored.0)
        w.add(base + 8, stepUp?.stored.1)
    }

    /// The exchange at `base`, or nil when the login has none (no client id).
    /// A key that does not read back is damage: its login could only fail at the token endpoint.
    static func read(_ r: StoredReader, at base: Int, _ reuse: inout StoredReuse) throws(StoredDamage) -> TokenExchange?
    {
        guard let client = r.shared(base, &reuse) else { return nil }
        guard let token = r.shared(base + 1, &reuse), let jwks = r.shared(base + 2, &reuse) else {
            throw StoredDamage()
        }
        var dpop: DPoPBinding?
        if let line = r.text(base + 6) {
            guard let binding = DPoPBinding(stored: line) else { throw StoredDamage() }
            dpop = binding
        }
        let acr = r.text(base + 7)
        let age = r.text(base + 8)
        let stepUp = StepUp(stored: acr, age)
        // A line that does not read back is damage: the login's ID token could not be checked as it was asked.
        if stepUp == nil, acr != nil || age != nil { throw StoredDamage() }
        return TokenExchange(
            clientID: client, tokenEndpoint: token, jwksURI: jwks, expectsIDToken: r.flag(base + 3),
            account: r.shared(base + 4, &reuse), accountInMemory: r.flag(base + 5), dpop: dpop, stepUp: stepUp)
    }
}
