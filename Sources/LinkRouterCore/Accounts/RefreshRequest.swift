/// `RefreshTokens`' options once decoded (`RefreshRequest.options`): a refresh
/// token for new tokens at the issuer's token endpoint, with the same checks
/// on a new ID token. The daemon keeps nothing of it.
public struct RefreshRequest: Sendable, Equatable {
    public var issuer: String?
    public var clientID: String?
    public var refreshToken: String?
    public var scope: String?

    public init() {}

    /// The request checked: every required option present and well formed.
    public func checked(limits: Limits) throws(RouterError) -> (
        issuer: String, clientID: String, refreshToken: String, scope: String?
    ) {
        guard let issuer else {
            throw .invalid(
                "issuer is missing: the issuer the refresh token came from; its metadata gives the token endpoint and keys"
            )
        }
        guard let clientID else { throw .invalid("client_id is missing: the client the refresh token was issued to") }
        guard let refreshToken else {
            throw .invalid("refresh_token is missing: the refresh token (at most 8 KiB of printable ASCII)")
        }
        try Self.options.checkLengths(self, limits: limits)
        let iss = try SessionPlan.checkIssuer(issuer, maxLength: limits.maxOptionBytes)
        guard OAuthText.isVisibleText(clientID) else {
            throw .invalid("client_id must be printable ASCII (RFC 6749 Appendix A)")
        }
        guard !refreshToken.isEmpty, OAuthText.isVisibleText(refreshToken) else {
            throw .invalid("refresh_token must be 1 to 8192 characters of printable ASCII")
        }
        if let scope, !OAuthText.isScope(scope) {
            throw .invalid("scope must be space-separated tokens of printable ASCII (RFC 6749 §3.3)")
        }
        return (iss, clientID, refreshToken, scope)
    }
}
