/// `GetToken`'s answer: the account's token set, which token the caller
/// asked for, and a warning when the set is not yet in the keyring.
public struct TokenAnswer: Sendable, Equatable {
    public var tokens: TokenSet
    public var kind: Account.TokenKind
    public var warning: String?
    public init(tokens: TokenSet, kind: Account.TokenKind, warning: String? = nil) {
        self.tokens = tokens
        self.kind = kind
        self.warning = warning
    }
}
