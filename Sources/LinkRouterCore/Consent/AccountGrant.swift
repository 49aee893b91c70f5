/// A person's "Always allow": a sandboxed app may have, without being asked
/// again, what the person was shown at the prompt: the account's own token,
/// or the narrower target the prompt named (a scope, resources, an audience),
/// and nothing wider. Kept beside the account's declaration by the daemon
/// (`grants.conf` of the user's linkrouter directory, bound there to the
/// declaration it was given for), shown by `linkctl grants`, ended by
/// `linkctl grants revoke`, gone with the account.
public struct AccountGrant: Sendable, Equatable {
    /// The verified app (`flatpak:ID`, `snap:NAME`); never `host` or `unknown`.
    public let app: CallerApp
    /// What the prompt asked the person about (normalised: the scope's tokens sorted, resources sorted).
    public let target: TokenTarget
    /// When the person said it (Unix seconds).
    public let grantedAt: Int64

    public init(app: CallerApp, target: TokenTarget, grantedAt: Int64) {
        self.app = app
        self.target = target
        self.grantedAt = grantedAt
    }

    /// Whether a call of `app` asking for `asked` is covered. A grant for the account's own token covers it and any
    /// narrower token. A grant for a narrower target covers only a target of the same kind that is no wider: the same
    /// parts named (a scope, resources, an audience), the scope within the granted one, the resources among the
    /// granted ones, the same audience. So a yes to "a token for audience calendar" never gives the account's own
    /// token, another audience, or a resource's token (issue 44).
    public func covers(_ app: CallerApp, _ asked: TokenTarget) -> Bool {
        guard app == self.app else { return false }
        if target.isOwn { return true }
        guard (asked.scope == nil) == (target.scope == nil), asked.resources.isEmpty == target.resources.isEmpty,
            asked.audience == target.audience
        else { return false }
        if let granted = target.scope, let scope = asked.scope {
            let tokens = Set(granted.split(separator: " "))
            guard scope.split(separator: " ").allSatisfy(tokens.contains) else { return false }
        }
        return Set(asked.resources).isSubset(of: Set(target.resources))
    }
}

extension Account {
    /// Whether the person has always allowed `app` this account for `target`.
    public func granted(to app: CallerApp, _ target: TokenTarget) -> Bool {
        grants.contains { $0.covers(app, target) }
    }

    /// Whether `app` is an app the person can be asked about (a verified sandboxed one), for this account (the
    /// person's: the user's or the administrator's).
    func askable(by app: CallerApp) -> Bool {
        switch (app, owner) {
        case (.flatpak, .user), (.flatpak, .system), (.snap, .user), (.snap, .system), (.remote, .user),
            (.remote, .system):
            true
        case (.flatpak, .app), (.snap, .app), (.remote, .app), (.host, _), (.unknown, _): false
        }
    }

    /// What a grant is bound to: the declaration's lines that shape the account's own token (issuer, client,
    /// scope, redirect, audience, resource, extra parameters, token kind, DPoP). The same name declared again with
    /// any of them changed is not the account the person allowed, and its grants do not apply (issue 44).
    public var grantBinding: [(key: String, value: String)] {
        fileEntries.filter { Self.grantBindingKeys.contains($0.key) }
    }

    /// The declaration keys `grantBinding` keeps.
    static let grantBindingKeys: Set<String> = [
        "issuer", "client_id", "scope", "redirect_uri", "audience", "resource", "extra_params", "token", "dpop",
    ]
}
