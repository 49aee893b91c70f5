/// How an entry of `ListAccounts`' answer reads for a helper that picks an
/// account by what it lists (a registry, a forge's URL): the accounts a
/// caller gets tokens of (the user name given with a token is `TokenUsername`). linkctl's
/// front compiles this file as it is (docker's `get`).
enum ListedAccount {
    /// `ListAccounts` lists apps' accounts too, for the host user to see; a helper hands out only the person's own
    /// (`owner` user, or system, or none said).
    static func isCallers(owner: String?) -> Bool { owner == nil || owner == "user" || owner == "system" }
}
