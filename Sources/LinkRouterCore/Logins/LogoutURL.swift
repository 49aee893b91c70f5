/// Signing out at the provider (OpenID Connect RP-Initiated Logout 1.0): the
/// browser goes to the provider's `end_session_endpoint` naming the ID token,
/// the client, a `state` and where to come back; the provider sends it back to
/// that `post_logout_redirect_uri` with the `state` alone, which the daemon
/// routes to the sign-out's session like a login's callback. The account's
/// tokens are forgotten here before the browser opens (`Router.logout`):
/// signing out here never waits on a provider.
enum LogoutURL {
    /// §2: `id_token_hint` (RECOMMENDED; without it some providers do nothing,
    /// Glewlwyd among them), `client_id`, `post_logout_redirect_uri`, `state`.
    static func make(
        _ endpoint: URIReference, clientID: String, idTokenHint: String?, postLogoutRedirectURI: String, state: String
    ) -> String {
        var pairs: [(String, String)] = []
        if let idTokenHint { pairs.append(("id_token_hint", idTokenHint)) }
        pairs += [("client_id", clientID), ("post_logout_redirect_uri", postLogoutRedirectURI), ("state", state)]
        return AuthorizeURL.withQuery(endpoint, pairs)
    }

    /// The plan of an account's sign-out: the account's client and redirect
    /// (its callback, custom scheme or loopback, is where the provider sends
    /// the browser back), the endpoint from the issuer's metadata.
    static func plan(
        _ request: SessionRequest, metadata: ProviderMetadata?, idTokenHint: String?, owner: Caller, ttl: UInt32,
        limits: Limits
    ) throws(RouterError) -> SessionPlan {
        guard let issuer = request.issuer, let clientID = request.clientID, let redirectText = request.redirectURI,
            let metadata
        else {
            throw RouterError(
                .internalError, "a sign-out at the provider was planned without its account or the issuer's metadata")
        }
        guard let endpointText = metadata.endSessionEndpoint else {
            throw .invalid(
                "\(issuer) offers no sign-out: its metadata lists no end_session_endpoint (OpenID Connect RP-Initiated Logout §2.1); the account is signed out here only"
            )
        }
        let endpoint = try AuthorizeURL.parseEndpoint(
            endpointText, role: "end_session_endpoint", maxLength: limits.maxOptionBytes)
        let redirect = try CallbackURI.parse(
            redirectText, role: "post_logout_redirect_uri", maxLength: limits.maxOptionBytes)
        if let idTokenHint, !OAuthText.isVisibleText(idTokenHint) {
            throw RouterError(
                .internalError, "the account's ID token is not printable ASCII; it is not named to the provider")
        }
        return SessionPlan(
            source: .logout(endpoint: endpoint, clientID: clientID, idTokenHint: idTokenHint),
            owner: owner, redirect: redirect, appCallback: nil, openBrowser: request.openBrowser,
            browser: request.browser, ttl: ttl, options: LoginOptions(), claimToken: request.claimToken,
            issuer: metadata.issuer, exchange: nil, authorizationOrigin: AuthorizeURL.origin(of: endpoint),
            clientChallenge: nil)
    }
}
