#if !LINKCTL_FRONT
    import LinkRouterCore  // the front compiles the core's Embedded folder itself
#endif

/// How an entry of `ListAccounts`' answer reads for a helper that picks an
/// account by what it lists (a registry, a forge's URL): the accounts a
/// caller gets tokens of (the user name given with a token is `TokenUsername`). linkctl's
/// front compiles this file as it is (docker's `get`).
enum ListedAccount {
    /// `ListAccounts` lists apps' accounts too, for the host user to see; a helper hands out only the person's own
    /// (`owner` user, or system, or none said).
    static func isCallers(owner: String?) -> Bool { owner == nil || owner == "user" || owner == "system" }

    /// docker's pick: the first of the caller's accounts in `ListAccounts`' answer that lists `registry`
    /// (`--registry`), and the user name it gives with its token.
    static func forRegistry(_ registry: String, in listed: [ReplyEntries]) -> (name: String, username: String)? {
        for record in listed {
            guard let name = record.entry("name"), isCallers(owner: record.entry("owner")),
                record.strings("registries").contains(registry)
            else { continue }
            return (name, record.entry("username") ?? TokenUsername.fallback)
        }
        return nil
    }
}
