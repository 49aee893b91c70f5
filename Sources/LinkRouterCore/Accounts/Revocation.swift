/// A token to revoke at sign-out (RFC 7009): the refresh token when there
/// is one (revoking it ends the grant, and the provider SHOULD revoke its
/// access tokens with it, §2.1), else the access token.
public struct Revocation: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    public let account: AccountKey
    public let clientID: String
    public let token: String
    public let hint: String
    /// The account's revocation endpoint, for a provider whose metadata lists none.
    public let endpoint: String?

    public init?(_ account: Account, _ tokens: TokenSet) {
        self.account = account.key
        clientID = account.clientID
        endpoint = account.revocationEndpoint
        if let refresh = tokens.refreshToken, !refresh.isEmpty {
            token = refresh
            hint = "refresh_token"
        } else if !tokens.accessToken.isEmpty {
            token = tokens.accessToken
            hint = "access_token"
        } else {
            return nil
        }
    }

    /// Never the token: a revocation reaches log lines.
    public var description: String { "revocation of \(account.name)'s \(hint)" }
    public var debugDescription: String { description }
}
