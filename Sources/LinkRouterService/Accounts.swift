import JSONKit
import LinkRouterCore
import LinkRouterFiles
import SecretKit
import SystemKit

/// The accounts component: the declared accounts (the user's and the
/// administrator's key files, read again when a file changes) and the
/// keyring their tokens live in. The keyring, and with it libsecret and
/// GLib, is opened on the first keyring operation: a daemon that keeps no
/// token never maps them.
final class Accounts {
    private let userDirectory: String?
    private let systemDirectory: String
    private let loop: EventLoop
    private let busAddress: String?
    private var cache: (stamp: [String: Int64], accounts: [Account])?
    private var store: SecretStore?
    /// The person's "Always allow" answers (`GrantsFile`), beside the user's accounts.
    private let grantsPath: String?
    /// Sets a stop could not write to the keyring (`SetAside`); none without a runtime directory.
    private let setAsideFiles: SetAsideFiles?
    /// Sign-ins still needed when the last daemon stopped; none without a runtime directory.
    private let carriedSignIns: CarriedSignIns?

    init(paths: LinkRouterPaths, loop: EventLoop, busAddress: String?) {
        userDirectory = paths.accountsDirectory
        grantsPath = paths.grantsFile
        systemDirectory = paths.systemAccountsDirectory
        setAsideFiles = paths.runtimeDirectory.map { SetAsideFiles(directory: $0 + "/unsaved") }
        carriedSignIns = paths.runtimeDirectory.map { CarriedSignIns(path: $0 + "/sign-ins") }
        self.loop = loop
        self.busAddress = busAddress
    }

    /// Every account that reads, every owner's: an administrator's wins over
    /// a user's of the same name; apps' accounts are apart (the core shows
    /// each caller the ones it may use).
    func all() -> [Account] {
        let apps = userDirectory.map { AccountFiles.appDirectories(in: $0) } ?? []
        var stamp = Self.stamp([systemDirectory] + (userDirectory.map { [$0] } ?? []) + apps.map(\.directory))
        if let grantsPath { stamp[grantsPath] = FileSystem.status(grantsPath)?.modifiedNanoseconds ?? -1 }
        if let cache, cache.stamp == stamp { return cache.accounts }
        let system = AccountFiles.read(directory: systemDirectory, owner: .system)
        let user = userDirectory.map { AccountFiles.read(directory: $0, owner: .user) } ?? (accounts: [], problems: [])
        let appAccounts = apps.map { AccountFiles.read(directory: $0.directory, owner: .app($0.label)) }
        for p in system.problems + user.problems + appAccounts.flatMap(\.problems) {
            Log.warning("Account file \(p); it is ignored")
        }
        let taken = Set(system.accounts.map(\.name))
        for a in user.accounts where taken.contains(a.name) {
            Log.warning("Account \(a.name) is declared by the administrator too; the administrator's is used")
        }
        var accounts =
            system.accounts + user.accounts.filter { !taken.contains($0.name) } + appAccounts.flatMap(\.accounts)
        let grants = grantsPath.map(GrantsFile.read) ?? []
        for i in accounts.indices where accounts[i].owner == .user || accounts[i].owner == .system {
            accounts[i].grants = grants.filter { $0.isFor(accounts[i]) }.map(\.grant)
        }
        cache = (stamp, accounts)
        return accounts
    }

    /// An "Always allow" kept (the same app and account's earlier one replaced).
    func grant(_ account: Account, _ grant: AccountGrant) -> RouterError? {
        changeGrants {
            $0.filter { !($0.isFor(account) && $0.grant.app == grant.app) } + [
                GrantsFile.Entry(account: account, grant: grant)
            ]
        }
    }

    /// The grants of `account` ended: those of `app`, or all of them (the account removed).
    func revokeGrants(_ account: Account, app: CallerApp? = nil) -> RouterError? {
        changeGrants { $0.filter { !$0.isFor(account) || (app != nil && $0.grant.app != app) } }
    }

    private func changeGrants(_ change: ([GrantsFile.Entry]) -> [GrantsFile.Entry]) -> RouterError? {
        guard let grantsPath else {
            return RouterError(.storageFailed, "there is no configuration directory to keep grants in")
        }
        cache = nil
        do { try GrantsFile.change(grantsPath, change) } catch {
            return RouterError(.storageFailed, "could not write \(grantsPath): \(error); nothing changed")
        }
        return nil
    }

    /// The directory an owner's accounts are written to (never the administrator's).
    private func directory(of owner: Account.Owner) -> String? {
        guard let userDirectory else { return nil }
        switch owner {
        case .user: return userDirectory
        case .app(let label): return AccountFiles.appDirectory(label, in: userDirectory)
        case .system: return nil
        }
    }

    /// `AddAccount`'s file (operation `.writeAccount`).
    func save(_ account: Account) -> RouterError? {
        guard let d = directory(of: account.owner) else {
            return RouterError(.storageFailed, "there is no configuration directory to keep \(account.name) in")
        }
        // Read again at the next call: a rewrite within one tick of the file's time would not change the stamp.
        cache = nil
        do { try AccountFiles.write(account, directory: d) } catch {
            return RouterError(
                .storageFailed,
                "could not write \(AccountFiles.path(of: account.name, in: d)): \(error); nothing changed")
        }
        return nil
    }

    /// `RemoveAccount`'s file gone (operation `.removeAccount`); an app's directory too once it is empty.
    func remove(_ account: Account) -> RouterError? {
        guard let d = directory(of: account.owner) else {
            return RouterError(.accessDenied, "\(account.name) is the administrator's")
        }
        cache = nil
        do { try FileSystem.remove(AccountFiles.path(of: account.name, in: d)) } catch {
            return RouterError(
                .storageFailed,
                "could not remove \(AccountFiles.path(of: account.name, in: d)): \(error); nothing changed")
        }
        if case .app = account.owner, FileSystem.list(d).isEmpty { try? FileSystem.removeDirectory(d) }
        // The person's account's grants go with it, whatever declaration they were given for (an app's own account
        // has none).
        if account.owner == .user, let e = changeGrants({ $0.filter { $0.account != account.name } }) {
            Log.warning("\(account.name)'s grants were not removed: \(e.message)")
        }
        return nil
    }

    /// Each `.conf` file's modification time, by path: an edit, an add or a removal changes it.
    private static func stamp(_ directories: [String]) -> [String: Int64] {
        var out: [String: Int64] = [:]
        for d in directories {
            for f in FileSystem.list(d) where f.hasSuffix(".conf") {
                out[d + "/" + f] = FileSystem.status(d + "/" + f, followSymlinks: true)?.modifiedNanoseconds ?? -1
            }
        }
        return out
    }

    // MARK: The keyring (a token flight's and a logout's reads, writes and deletes)

    private var keyring: SecretStore {
        if let store { return store }
        let s = SecretStore(loop: loop, busAddress: busAddress)
        store = s
        return s
    }

    func read(_ key: AccountKey, _ done: @escaping (KeyringRead) -> Void) {
        keyring.read(Self.secretKey(key)) { r in
            switch r {
            case .success(nil): done(.success(nil))
            case .success(let text?):
                // Not "not signed in": an item of another version, or damaged, is left as it is.
                guard let tokens = StoredTokens.decode(text) else {
                    done(
                        .failure(
                            RouterError(
                                .keyringFailed,
                                "the keyring's item for \(key.name) is not one this linkrouter can read (another version, or damaged); it is left as it is"
                            )))
                    return
                }
                done(.success(tokens))
            case .failure(let e): done(.failure(Self.error(e)))
            }
        }
    }

    /// Writes the account's item; `done` hears nil, or why not.
    func write(_ key: AccountKey, _ tokens: TokenSet, _ done: @escaping (RouterError?) -> Void) {
        keyring.write(Self.secretKey(key), label: "linkrouter: \(key.name)", secret: StoredTokens.encode(tokens)) { r in
            done(r.failure.map(Self.error))
        }
    }

    /// Deletes the account's item; `done` hears nil, or why not.
    func delete(_ key: AccountKey, _ done: @escaping (RouterError?) -> Void) {
        keyring.delete(Self.secretKey(key)) { r in done(r.failure.map(Self.error)) }
    }

    // MARK: A registered client's management credentials (RFC 7592), an item of their own

    func readRegistration(_ key: AccountKey, _ done: @escaping (Result<RegistrationCredentials?, RouterError>) -> Void)
    {
        keyring.read(Self.registrationKey(key)) { r in
            switch r {
            case .success(nil): done(.success(nil))
            case .success(let text?):
                guard let document = try? JSONParser.parse(Array(text.utf8)),
                    let credentials = RegistrationCredentials(document: document)
                else {
                    done(
                        .failure(
                            RouterError(
                                .keyringFailed,
                                "the keyring's registration item for \(key.name) is not one this linkrouter can read")))
                    return
                }
                done(.success(credentials))
            case .failure(let e): done(.failure(Self.error(e)))
            }
        }
    }

    func writeRegistration(
        _ key: AccountKey, _ credentials: RegistrationCredentials, _ done: @escaping (RouterError?) -> Void
    ) {
        keyring.write(
            Self.registrationKey(key), label: "linkrouter: \(key.name)'s client registration",
            secret: JSONParser.encode(credentials.document)
        ) { r in done(r.failure.map(Self.error)) }
    }

    func deleteRegistration(_ key: AccountKey, _ done: @escaping (RouterError?) -> Void) {
        keyring.delete(Self.registrationKey(key)) { r in done(r.failure.map(Self.error)) }
    }

    /// The registration's item: the account's key with `#registration` after its name (a name has no `#`), so it
    /// never meets a token set's item, which a sign-out deletes.
    private static func registrationKey(_ key: AccountKey) -> SecretStore.Key {
        SecretStore.Key(account: key.qualifiedName + "#registration", issuer: key.issuer)
    }

    /// Asks the keyring to unlock (its own prompt); `done` hears whether a prompt showed, or why not.
    func unlockKeyring(_ done: @escaping (Result<Bool, RouterError>) -> Void) {
        keyring.unlock { r in done(r.map { $0 == .prompted }.mapError(Self.error)) }
    }

    // MARK: Sets a stop set aside (`SetAside`)

    /// `Effect.setAside`: as the daemon stops, a set the keyring has not taken.
    func setAside(_ key: AccountKey, _ tokens: TokenSet) {
        guard let setAsideFiles else {
            Log.warning("\(key.name)'s new tokens are lost: there is no runtime directory to set them aside in")
            return
        }
        do { try setAsideFiles.keep(key, tokens) } catch {
            Log.warning("\(key.name)'s new tokens are lost: they could not be set aside (\(error))")
        }
    }

    /// `Effect.dropSetAside`: the keyring took the set, or the sign-in ended.
    func dropSetAside(_ key: AccountKey) {
        do { try setAsideFiles?.drop(key) } catch {
            Log.warning("\(key.name)'s set-aside tokens could not be deleted (\(error))")
        }
    }

    /// At start: the sets an earlier daemon set aside (an unreadable file is left as it is, and said).
    func setAsideSets() -> [(AccountKey, TokenSet)] {
        guard let found = setAsideFiles?.all() else { return [] }
        for file in found.unreadable {
            Log.warning("\(file) is not a set of tokens this linkrouter set aside; it is left as it is")
        }
        return found.sets
    }

    /// `Effect.carrySignIns`: as the daemon stops, the sign-ins its withdrawn notices asked for.
    func carrySignIns(_ keys: [AccountKey]) {
        do { try carriedSignIns?.keep(keys) } catch {
            Log.warning("The sign-ins still needed could not be kept for the next linkrouterd (\(error))")
        }
    }

    /// At start: the sign-ins the last daemon's notices asked for when it stopped (read once).
    func takeCarriedSignIns() -> [AccountKey] { carriedSignIns?.take() ?? [] }

    private static func secretKey(_ key: AccountKey) -> SecretStore.Key {
        SecretStore.Key(account: key.qualifiedName, issuer: key.issuer)
    }

    /// The keyring's errors as the core's: each keeps its own name on the bus.
    static func error(_ e: SecretError) -> RouterError {
        switch e {
        case .locked: RouterError(.keyringLocked, e.description)
        case .noService, .noDefaultCollection, .unavailable: RouterError(.noKeyring, e.description)
        case .timedOut, .failed: RouterError(.keyringFailed, e.description)
        }
    }
}

extension Result {
    /// The error, if this is one.
    var failure: Failure? {
        if case .failure(let e) = self { return e }
        return nil
    }
}
