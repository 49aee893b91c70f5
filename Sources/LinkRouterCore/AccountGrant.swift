/// A person's "Always allow": a sandboxed app may use one of the person's
/// accounts (the user's or the administrator's) without being asked again,
/// for any scope (`scope` nil) or the one it asked for and narrower. Kept
/// beside the account's declaration by the daemon (`grants` of the user's
/// linkrouter directory), shown by `linkctl grants`, ended by
/// `linkctl grants revoke`, gone with the account.
public struct AccountGrant: Sendable, Equatable {
    /// The verified app (`flatpak:ID`, `snap:NAME`); never `host` or `unknown`.
    public let app: CallerApp
    /// The scope it was granted for (a call asking within it is covered); nil: the account's own, and any narrower.
    public let scope: String?
    /// When the person said it (Unix seconds).
    public let grantedAt: Int64

    public init(app: CallerApp, scope: String?, grantedAt: Int64) {
        self.app = app
        self.scope = scope
        self.grantedAt = grantedAt
    }

    /// Whether a call of `app` asking for `target` is covered: any, by a grant for the account's own; by a grant for a
    /// scope, that scope or a narrower one, with no resource or audience besides (the person was not asked about them).
    public func covers(_ app: CallerApp, _ target: ConsentTarget) -> Bool {
        guard app == self.app else { return false }
        guard let scope else { return true }
        guard let asked = target.scope, target.resources.isEmpty, target.audience == nil else { return false }
        let granted = Set(scope.split(separator: " "))
        return asked.split(separator: " ").allSatisfy(granted.contains)
    }
}

extension Account {
    /// Whether the person has always allowed `app` this account for `scope`.
    public func granted(to app: CallerApp, _ target: ConsentTarget) -> Bool {
        grants.contains { $0.covers(app, target) }
    }

    /// Whether `app` is an app the person can be asked about (a verified sandboxed one), for this account (the
    /// person's: the user's or the administrator's).
    func askable(by app: CallerApp) -> Bool {
        switch (app, owner) {
        case (.flatpak, .user), (.flatpak, .system), (.snap, .user), (.snap, .system): true
        default: false
        }
    }
}
