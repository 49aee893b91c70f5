import DBusKit
import LinkRouterAPI
import LinkRouterCore
import SystemKit

/// `GetToken` as linkctl's verbs ask it (`token NAME`, `credential git|kube`,
/// the docker helper): the token, its expiry, the daemon's warning if any,
/// and the whole reply for `--json`. A refresh, or an unlock prompt the
/// keyring shows, can take a while: the call waits up to 120 s.
enum AccountToken {
    struct Reply {
        let token: String
        let expiresAt: Int64?
        let warning: String?
        let fields: DBusValue?
    }

    /// `bearer`: the caller sends the token as a bearer token (git, kubectl, docker, a script's
    /// `Authorization: Bearer`): a DPoP-bound one gets a warning on stderr, since a server that checks the binding
    /// refuses it so.
    static func get(_ account: String, _ options: [(String, DBusValue)] = [], bearer: Bool = true) throws(DaemonClient
        .Failure) -> Reply
    {
        let client = try DaemonClient.connect()
        let reply = try client.call("GetToken", [.string(account), .vardict(options)], timeoutMilliseconds: 120_000)
            .first
        guard let token = reply?.entry(TokenReplyKeys.token)?.stringValue, !token.isEmpty else {
            throw .refused(name: DBusError.failed, message: "the daemon answered GetToken without a token")
        }
        var expiresAt: Int64?
        if case .int64(let e)? = reply?.entry(TokenReplyKeys.expiresAt) { expiresAt = e }
        if bearer, BearerWarning.isBound(tokenType: reply?.entry(TokenReplyKeys.tokenType)?.stringValue) {
            StandardStreams.err(BearerWarning.text(account: account))
        }
        return Reply(
            token: token, expiresAt: expiresAt, warning: reply?.entry(TokenReplyKeys.warning)?.stringValue,
            fields: reply)
    }

    /// An account as `ListAccounts` shows it, with what picks it for a registry or a forge.
    struct Listed {
        let name: String
        let username: String
        let registries: [String]
        let gitURLs: [String]
        /// Where its tokens live: `keyring`, or `memory` (the daemon's life only).
        let store: String
        let issuer: String
        /// `default=true`: the one picked among several at its issuer.
        let isDefault: Bool
    }

    /// The name of the account the daemon hands out for `issuer` (`IssuerChoice`, the rule it decides by), for the
    /// calls that need a name (a sign-in, a proof, git's `erase`).
    static func named(issuer: String) throws(DaemonClient.Failure) -> String {
        let listed = try accounts()
        do throws(RouterError) {
            return try IssuerChoice.pick(
                issuer, among: listed, name: { $0.name }, issuer: { $0.issuer }, isDefault: { $0.isDefault }
            ).name
        } catch {
            throw .refused(name: error.code.dbusName, message: error.message)
        }
    }

    /// What a person must know after signing in to an account whose tokens live in the daemon's memory only (nil for
    /// a keyring account, or when the daemon cannot say).
    static func memoryOnlyNote(_ name: String) -> String? {
        guard let listed = try? accounts().first(where: { $0.name == name }), listed.store == "memory" else {
            return nil
        }
        return Self.memoryOnly(name)
    }

    /// `store=memory`, said plainly.
    static func memoryOnly(_ name: String) -> String {
        "\(name)'s tokens are kept in linkrouterd's memory only (store=memory): they last until the daemon stops (a logout, a reboot, an upgrade); then \(name) needs a new sign-in"
    }

    /// `ListAccounts`' answer, each entry as both halves of linkctl read one (`ListedAccount`).
    static func listed() throws(DaemonClient.Failure) -> [ReplyEntries] {
        try listedItems().map { ReplyEntries(vardict: $0) }
    }

    /// `ListAccounts`' answer: its entries, each an `a{sv}`.
    private static func listedItems() throws(DaemonClient.Failure) -> [DBusValue] {
        let client = try DaemonClient.connect()
        let reply = try client.call("ListAccounts", timeoutMilliseconds: 120_000)
        guard case .array(_, let items)? = reply.first else { return [] }
        return items
    }

    /// The accounts this caller can get tokens of (`ListAccounts` lists apps' too, for the host user to see: those are
    /// left out).
    static func accounts() throws(DaemonClient.Failure) -> [Listed] {
        let items = try listedItems()
        func strings(_ v: DBusValue?) -> [String] {
            if case .array(_, let list)? = v { list.compactMap(\.stringValue) } else { [] }
        }
        return items.compactMap { item in
            guard let name = item.entry("name")?.stringValue,
                ListedAccount.isCallers(owner: item.entry("owner")?.stringValue)
            else { return nil }
            return Listed(
                name: name, username: item.entry("username")?.stringValue ?? TokenUsername.fallback,
                registries: strings(item.entry("registries")), gitURLs: strings(item.entry("git_urls")),
                store: item.entry("store")?.stringValue ?? "keyring", issuer: item.entry("issuer")?.stringValue ?? "",
                isDefault: item.entry("default")?.variantValue == .boolean(true))
        }
    }

    /// The account's login, as `linkctl login NAME` runs it, for a caller
    /// that asked for a token and may wait for a person (`--interactive`):
    /// everything it says goes to stderr, so stdout keeps only the token.
    /// With no browser here (no display, or an SSH session), the device grant where the provider offers it, as
    /// `linkctl login` does: a code and a page for a phone, never a browser that cannot start; else the URL to open
    /// elsewhere.
    /// `asking`: a step-up's `acr_values` and `max_age` (`GetToken`'s, passed on), for the sign-in to ask for.
    static func signIn(_ account: String, openBrowser: Bool, asking: [(String, DBusValue)] = [])
        throws(DaemonClient.Failure)
    {
        var openBrowser = openBrowser
        if openBrowser, SystemEnvironment.noBrowserHere {
            do throws(DaemonClient.Failure) {
                let (client, path) = try LoginCommand.deviceBegin(
                    [("account", .string(account))] + asking, qr: StandardStreams.errIsTerminal)
                _ = try WaitCommand.result(client, path: path, timeout: 0)
                _ = try? client.call(path: path, interface: API.sessionInterface, "Acknowledge")
                return
            } catch {
                // Refused before a session was made (no device grant at this provider): the URL, to open elsewhere.
                // A refusal after (the person denied it, the code expired) is the answer.
                guard case .refused = error, error.code == .invalidArgument || error.code == .discoveryFailed else {
                    throw error
                }
                openBrowser = false
            }
        }
        let client = try DaemonClient.connect()
        var options: [(String, DBusValue)] =
            [("account", .string(account)), ("open_browser", .boolean(openBrowser))] + asking
        options += SystemEnvironment.activationOptions(besides: options)
        let reply: [DBusValue]
        (reply, openBrowser) = try BrowserSignIn.begin(client, options)
        guard let path = reply.first?.objectPathValue else {
            throw .refused(name: DBusError.invalidArgs, message: "BeginSession answered without a session")
        }
        let url = reply.count > 1 ? reply[1].stringValue ?? "" : ""
        let how =
            openBrowser
            ? "The browser was opened to sign in to \(account); if it did not appear, open:"
            : "Open this URL in your browser to sign in to \(account):"
        StandardStreams.err("\(how)\n  \(url)\nWaiting for the callback…\n")
        _ = try WaitCommand.result(client, path: path, timeout: 0)
        _ = try? client.call(path: path, interface: API.sessionInterface, "Acknowledge")
    }
}

extension AccountToken {
    /// The step-up among `GetToken`'s options (`acr_values`, `max_age`): what a sign-in for it asks for.
    static func stepUp(_ options: [(String, DBusValue)]) -> [(String, DBusValue)] {
        options.filter { $0.0 == TokenOptionNames.acrValues.1 || $0.0 == TokenOptionNames.maxAge.1 }
    }
}
