/// Where a grant goes and what its answer must satisfy: the token endpoint,
/// the keys that sign the ID token, the claims it must carry. Made by the
/// core from a session's exchange plan or a refresh request; posted by the
/// daemon's providers (`OpenIDConnect.TokenClient`).
public struct TokenGrant: Sendable, Equatable {
    public var tokenEndpoint: String
    public var jwksURI: String
    public var expected: IDTokenClaims.Expected
    /// OpenID Connect's code flow must return an ID token; a refresh may omit it (§12.2).
    public var requiresIDToken: Bool
    /// The key every request of this grant proves (RFC 9449), and whether the answer must be `token_type: DPoP`.
    public var dpop: DPoPBinding?

    public init(
        tokenEndpoint: String, jwksURI: String, expected: IDTokenClaims.Expected, requiresIDToken: Bool,
        dpop: DPoPBinding? = nil
    ) {
        self.dpop = dpop
        self.tokenEndpoint = tokenEndpoint
        self.jwksURI = jwksURI
        self.expected = expected
        self.requiresIDToken = requiresIDToken
    }
}
