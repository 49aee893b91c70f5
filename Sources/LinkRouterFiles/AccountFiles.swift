import Freedesktop
public import LinkRouterCore
public import SystemKit

/// Accounts as key files, one per account, `NAME.conf`, with one group
/// `[Account]` whose keys are `AddAccount`'s options (`AccountRequest.options`):
///
///     [Account]
///     issuer=https://id.example.com
///     client_id=cli
///
/// `linkctl account add` writes the user's; an administrator writes
/// `/etc/linkrouter/accounts.d/`. The daemon reads both, each file through
/// `Account.make`, so a file edited by hand meets the same rules.
public enum AccountFiles {
    public static let group = "Account"

    /// Every account in `directory` that reads, and what is wrong with the others.
    public static func read(directory: String, owner: Account.Owner) -> (accounts: [Account], problems: [String]) {
        var accounts: [Account] = []
        var problems: [String] = []
        for file in FileSystem.list(directory).sorted() where file.hasSuffix(".conf") {
            let name = String(file.dropLast(5))
            let path = directory + "/" + file
            do throws(RouterError) {
                accounts.append(try read(path: path, name: name, owner: owner))
            } catch {
                problems.append("\(path): \(error.message)")
            }
        }
        return (accounts, problems)
    }

    static func read(path: String, name: String, owner: Account.Owner) throws(RouterError) -> Account {
        guard let text = try? FileSystem.readText(path, maxBytes: 64 << 10) else {
            throw RouterError(.invalidArgument, "cannot be read (or is over 64 KiB)")
        }
        let file = KeyFile(parsing: text)
        guard file.groups.contains(group) else { throw RouterError(.invalidArgument, "has no [\(group)] group") }
        var request = AccountRequest()
        for (key, value) in file.entries(in: group) { try AccountRequest.options.set(&request, key: key, text: value) }
        return try Account.make(name: name, request, owner: owner)
    }

    /// The file's text: the account's entries, in the table's order.
    public static func text(_ account: Account) -> String {
        "# linkrouter account \(account.name) (linkctl account add/remove; keys: docs/accounts.md)\n[\(group)]\n"
            + account.fileEntries.map { $0.key + "=" + $0.value + "\n" }.joined()
    }

    public static func path(of name: String, in directory: String) -> String { directory + "/" + name + ".conf" }

    /// Where an app's accounts (`AddAccount` from a sandbox) are kept: `apps/KIND/ID/` under the user's accounts,
    /// `KIND:ID` being the app's label (`flatpak:org.example.App`).
    public static func appDirectory(_ label: String, in accountsDirectory: String) -> String {
        accountsDirectory + "/" + appsSubdirectory + "/" + String(label.map { $0 == ":" ? "/" : $0 })
    }

    public static let appsSubdirectory = "apps"

    /// Every app's directory of accounts under the user's, with its app's label.
    public static func appDirectories(in accountsDirectory: String) -> [(label: String, directory: String)] {
        let apps = accountsDirectory + "/" + appsSubdirectory
        return ["flatpak", "snap"].flatMap { kind in
            FileSystem.list(apps + "/" + kind).sorted().filter { !$0.hasPrefix(".") }.map {
                (kind + ":" + $0, apps + "/" + kind + "/" + $0)
            }
        }
    }

    /// Writes the account's file (0600 in a 0700 directory): its tokens are not in it, but who signs in where is the
    /// user's.
    public static func write(_ account: Account, directory: String) throws(SystemError) {
        try FileSystem.makeDirectories(directory, permissions: 0o700)
        try FileSystem.writeAtomically(path(of: account.name, in: directory), text: text(account), permissions: 0o600)
    }
}
