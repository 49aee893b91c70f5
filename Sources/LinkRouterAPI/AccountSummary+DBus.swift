public import DBusKit
public import LinkRouterCore

extension AccountSummary {
    /// `ListAccounts`' entry: `signed_in` is `yes`, `no`, or `unknown` when
    /// the keyring could not be read (locked, say). Nothing secret:
    /// no token, no claim but `sub`.
    public var dictionary: DBusValue {
        let a = account
        var entries: [(String, DBusValue)] = [
            ("name", .string(a.name)), ("issuer", .string(a.issuer)), ("client_id", .string(a.clientID)),
            ("owner", .string(a.owner.label)),
            ("store", .string(a.store.rawValue)), ("token", .string(a.token.rawValue)),
            ("username", .string(a.username)),
        ]
        // A client linkrouter registered (RFC 7591): under what name, and whether removing the account deletes it.
        if let n = a.clientName { entries.append(("client_name", .string(n))) }
        // The resource its sign-ins ask for (RFC 8707), as declared or found from the resource's metadata (RFC 9728).
        if let r = a.resource { entries.append(("resource", .string(r))) }
        if let r = a.registered { entries.append(("registered", .string(r.rawValue))) }
        if a.isDefault { entries.append(("default", .boolean(true))) }
        if !a.registries.isEmpty { entries.append(("registries", .stringArray(a.registries))) }
        if !a.gitURLs.isEmpty { entries.append(("git_urls", .stringArray(a.gitURLs))) }
        // The apps the person always allowed (`AccountGrant`): app label, what it covers (`scope` "" and no
        // `resources` or `audience`: the account's own token), when.
        if !a.grants.isEmpty {
            entries.append(
                (
                    "grants",
                    .array(
                        element: "a{sv}",
                        a.grants.map { g in
                            var entry: [(String, DBusValue)] = [
                                ("app", .string(g.app.label)), ("scope", .string(g.target.scope ?? "")),
                            ]
                            if !g.target.resources.isEmpty {
                                entry.append(("resources", .stringArray(g.target.resources)))
                            }
                            if let audience = g.target.audience { entry.append(("audience", .string(audience))) }
                            entry.append(("granted_at", .int64(g.grantedAt)))
                            return .vardict(entry)
                        })
                ))
        }
        let signedIn: String
        if let t = tokens, t.loaded || t.tokens != nil {
            signedIn = t.tokens == nil ? "no" : "yes"
        } else {
            signedIn = a.store == .memory ? "no" : "unknown"
        }
        entries.append(("signed_in", .string(signedIn)))
        if let s = tokens?.tokens?.subject { entries.append(("sub", .string(s))) }
        if let e = tokens?.tokens?.expiresAt { entries.append(("expires_at", .int64(e))) }
        // What the provider granted, where it is not what was declared (a provider may grant less than asked, RFC
        // 6749 §3.3): a token for the declared scope is then not to be had from this sign-in.
        if let granted = tokens?.tokens?.scope,
            Set(granted.split(separator: " ")) != Set(a.scope.split(separator: " "))
        {
            entries.append(("granted_scope", .string(granted)))
        }
        if let u = tokens?.unsaved { entries.append(("unsaved", .string(u))) }
        // The collection behind the Secret Service's `default` alias (the one linkrouter writes to), and its state when
        // last asked.
        if a.store == .keyring {
            let locked = tokens?.keyringLocked.map { $0 ? ", locked" : ", unlocked" } ?? ""
            entries.append(("keyring", .string("default collection" + locked)))
        }
        if let t = tokens, let retry = t.retryAt {
            entries.append(("refresh_failures", .int64(Int64(t.failures))))
            entries.append(("retry_at", .int64(retry)))
            if let why = t.lastFailure { entries.append(("refresh_failure", .string(why))) }
        }
        return .vardict(entries)
    }
}
