/// What `Wait` hands the session's owner when the login completed.
public struct AuthorizationResult: Sendable, Equatable {
    public var code: String
    public var state: String
    /// The redirect URI to send, unchanged, with the token request.
    public var redirectURI: String
    /// The callback exactly as it arrived.
    public var callbackURI: String
    /// RFC 9207 issuer identifier, when the provider sent one.
    public var issuer: String?
    /// Present only when the daemon made the PKCE pair.
    public var codeVerifier: String?
    /// The OpenID Connect nonce the daemon put in the request, for the ID token check.
    public var nonce: String?
    /// With `exchange`: the tokens the code was exchanged for (the code itself is then gone).
    /// Held in memory only (`TokenSet`).
    public var tokens: TokenSet?
    /// The activation token of the click that brought the callback (the browser's hand-off to `xdg-open`): the
    /// owner presents its window with it (issue 45). Memory only, never stored: a token lives seconds.
    public var activationToken: String?

    public init(
        code: String, state: String, redirectURI: String, callbackURI: String,
        issuer: String?, codeVerifier: String?, nonce: String?
    ) {
        self.code = code
        self.state = state
        self.redirectURI = redirectURI
        self.callbackURI = callbackURI
        self.issuer = issuer
        self.codeVerifier = codeVerifier
        self.nonce = nonce
    }
}
