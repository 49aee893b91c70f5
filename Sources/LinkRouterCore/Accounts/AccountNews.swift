/// What `AccountChanged(s account, a{sv} state)` says of an account: that it
/// signed in, was refreshed, signed out (and why), or that the keyring it
/// keeps its tokens in locked or unlocked. Never a token, a code or a refresh
/// token. It goes to the clients that may use the account, one by one (a
/// unicast each): an app's own accounts to that app's connections only, the
/// user's and the administrator's to the host's programs; a client is known
/// once it has called the daemon (it is identified then).
public struct AccountNews: Sendable, Equatable {
    public enum Change: String, Sendable {
        case signedIn = "signed_in"
        case refreshed
        case signedOut = "signed_out"
        case keyringLocked = "keyring_locked"
        case keyringUnlocked = "keyring_unlocked"
    }

    /// The account's name as its owner calls it (an app's `work` is `work` to that app).
    public let account: String
    public let issuer: String
    public let change: Change
    /// The new access token's expiry (unix seconds), for `signed_in` and `refreshed`.
    public let expiresAt: Int64?
    /// Why it signed out.
    public let why: String?
    /// The bus names it goes to.
    public let destinations: [String]

    /// The news of `key`'s `change`, for every client in `core` that may use the account; nil when there is none.
    static func of(
        _ key: AccountKey, _ change: Change, expiresAt: Int64? = nil, why: String? = nil, in core: Router
    ) -> AccountNews? {
        let names = core.callers.filter { _, app in
            if let owner = key.app { app != .host && app != .unknown && app.label == owner } else { app == .host }
        }.keys.sorted()
        guard !names.isEmpty else { return nil }
        return AccountNews(
            account: key.name, issuer: key.issuer, change: change, expiresAt: expiresAt, why: why, destinations: names)
    }
}

extension Transition {
    /// With `news` sent, when there is someone to send it to.
    func telling(_ news: AccountNews?) -> Transition {
        guard let news else { return self }
        var t = self
        t.effects.append(.accountChanged(news))
        return t
    }
}
