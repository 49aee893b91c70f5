extension SessionRequest {
    /// The account's provider options, for its login: what the account
    /// declares is not given again (a second source of the same option could
    /// disagree), the code is exchanged, and the tokens are the account's.
    public mutating func use(_ account: Account) throws(RouterError) {
        let given: [(String, Bool)] = [
            ("issuer", issuer != nil), ("client_id", clientID != nil),
            ("authorization_endpoint", authorizationEndpoint != nil),
            ("authorize_url", authorizeURL != nil), ("code_challenge", codeChallenge != nil), ("scope", scope != nil),
            ("redirect_uri", redirectURI != nil), ("extra_params", !extraParams.isEmpty), ("par", par != nil),
        ]
        if let (key, _) = given.first(where: { $0.1 }) {
            throw .invalid(
                "\(key) is the account's (\(account.name)) to set; leave it out, or change the account (linkctl account add \(account.name) …)"
            )
        }
        issuer = account.issuer
        clientID = account.clientID
        scope = account.scope
        redirectURI = account.redirectURI
        var params = account.extraParams
        if let a = account.audience { params["audience"] = a }
        if let r = account.resource { params["resource"] = r }
        extraParams = params
        par = account.par.rawValue
        deviceAuthorizationEndpoint = account.deviceAuthorizationEndpoint
        dpop = account.dpop
        exchange = true
        // The key's name, so the tokens land on this owner's account.
        self.account = account.key.qualifiedName
        accountStore = account.store
    }
}
