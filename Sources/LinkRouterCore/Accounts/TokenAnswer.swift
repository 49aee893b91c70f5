/// `GetToken`'s answer: the account's token set, which token the caller
/// asked for, and a warning when the set is not yet in the keyring.
public struct TokenAnswer: Sendable, Equatable {
    public var tokens: TokenSet
    public var kind: Account.TokenKind
    public var warning: String?
    /// What the token is for, when it is a narrower one.
    public var target: TokenTarget
    /// The account it is of (its name; for an app's own account, the name the app gave it).
    public var account: String = ""
    /// The account's issuer (oidc-agent's clients are told it with the token).
    public var issuer: String = ""
    /// The DPoP proof to sign for this very access token, when it was asked with it (`dpop_method`).
    public var proof: ProofPlan?
    public init(tokens: TokenSet, kind: Account.TokenKind, warning: String? = nil, target: TokenTarget = TokenTarget())
    {
        self.target = target
        self.tokens = tokens
        self.kind = kind
        self.warning = warning
    }
}
