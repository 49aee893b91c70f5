/// What a token endpoint handed out, once every check passed. Lives in the
/// daemon's memory only: never written to the store, gone when the result is
/// released (acknowledged, the owner left, or the grace period passed).
public struct TokenSet: Sendable, Equatable {
    public var accessToken: String
    public var tokenType: String
    /// Wall-clock unix seconds, from `expires_in` and when the response arrived.
    public var expiresAt: Int64?
    public var refreshToken: String?
    public var idToken: String?
    /// The scope granted, when the provider said (RFC 6749 §5.1).
    public var scope: String?
    /// The verified ID token's claims, as the JSON object the provider signed.
    public var claims: String?
    /// From the verified claims, for callers that print who signed in without parsing JSON.
    public var subject: String?
    public var name: String?
    public var email: String?
    /// The verified ID token's `exp`: a consumer of the ID token (an OIDC
    /// Kubernetes cluster) needs it fresh, whatever the access token's life.
    public var idTokenExpiresAt: Int64?
    /// The verified ID token's `acr` and `auth_time`: how and when the person signed in, which a step-up
    /// (`StepUp`: `GetToken`'s `acr_values`, `max_age`) is checked against. A refresh's ID token says the same
    /// (OpenID Connect Core §12.2).
    public var acr: String?
    public var authTime: Int64?
    /// The key the tokens are bound to (RFC 9449): kept with them in the keyring, never handed out.
    /// Set when the grant proved it, whatever `token_type` came back (a public client's refresh token is bound either
    /// way, §5).
    public var dpopKey: DPoPKey?

    public init(
        accessToken: String, tokenType: String, expiresAt: Int64?, refreshToken: String?, idToken: String?,
        scope: String?, claims: String? = nil
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.scope = scope
        self.claims = claims
    }
}

/// Never the tokens themselves: a token set reaches log lines inside the
/// operations that carry it (a keyring write, say), and a log is no place for a secret.
extension TokenSet: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        "tokens (\(tokenType), expires_at \(expiresAt.map(String.init) ?? "unknown"), refresh token \(refreshToken == nil ? "no" : "yes"), ID token \(idToken == nil ? "no" : "yes")\(dpopKey == nil ? "" : ", DPoP-bound"))"
    }
    public var debugDescription: String { description }
}

extension TokenSet {
    /// This set, with the tokens `current` (the same set, as memory holds it) marks as refused by a server
    /// (`RejectToken`: expiry 0) still refused: a keyring write that lands after a rejection does not undo it.
    func keepingRejections(of current: TokenSet?) -> TokenSet {
        guard let current, ConstantTime.equals(current.accessToken, accessToken) else { return self }
        var kept = self
        if current.expiresAt == 0 { kept.expiresAt = 0 }
        if current.idTokenExpiresAt == 0, current.idToken != nil, current.idToken == idToken {
            kept.idTokenExpiresAt = 0
        }
        return kept
    }
}

extension TokenSet {
    /// Why this sign-in does not meet `stepUp` at `now`, or nil.
    public func unmet(_ stepUp: StepUp, now: Int64) -> String? {
        stepUp.unmet(acr: acr, authTime: authTime, now: now)
    }
}
