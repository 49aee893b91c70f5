/// One account as `ListAccounts` shows it: its declaration and what the
/// daemon knows of its tokens (nothing secret leaves in the listing).
public struct AccountSummary: Sendable, Equatable {
    public let account: Account
    public let tokens: AccountKeeper?

    public init(account: Account, tokens: AccountKeeper?) {
        self.account = account
        self.tokens = tokens
    }
}
