public import LinkRouterCore
public import SystemKit

/// The person's "Always allow" answers (`AccountGrant`), one per line, in the
/// user's linkrouter directory beside the accounts (`grants.conf`, 0600):
///
///     ACCOUNT<TAB>ISSUER<TAB>CLIENT_ID<TAB>APP<TAB>SCOPE<TAB>GRANTED_AT
///
/// A grant is for the account as the person knew it: its name, issuer and
/// client (an account of that name declared again for another provider or
/// client is not the one they allowed). `APP` is a `CallerApp` label
/// (`flatpak:org.example.App`), `SCOPE` empty for the account's own,
/// `GRANTED_AT` Unix seconds. A field with a tab or a line break is never
/// written (none can hold one by its own rules), and a line that does not
/// read is skipped: a grant is never made up from a damaged file.
public enum GrantsFile {
    public struct Entry: Sendable, Equatable {
        public let account: String
        public let issuer: String
        public let clientID: String
        public let grant: AccountGrant

        public init(account: Account, grant: AccountGrant) {
            self.account = account.name
            issuer = account.issuer
            clientID = account.clientID
            self.grant = grant
        }

        init(account: String, issuer: String, clientID: String, grant: AccountGrant) {
            self.account = account
            self.issuer = issuer
            self.clientID = clientID
            self.grant = grant
        }

        /// Whether it is `account`'s: the same name, issuer and client.
        public func isFor(_ account: Account) -> Bool {
            self.account == account.name && issuer == account.issuer && clientID == account.clientID
        }

        var fields: [String] {
            [account, issuer, clientID, grant.app.label, grant.scope ?? "", String(grant.grantedAt)]
        }
    }

    public static func read(_ path: String) -> [Entry] {
        guard let text = try? FileSystem.readText(path, maxBytes: 1 << 20) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count == 6, (try? Account.checkName(f[0])) != nil, !f[1].isEmpty, !f[2].isEmpty,
                let app = CallerApp(label: f[3]), app != .host, app != .unknown, let at = Int64(f[5])
            else { return nil }
            let grant = AccountGrant(app: app, scope: f[4].isEmpty ? nil : f[4], grantedAt: at)
            return Entry(account: f[0], issuer: f[1], clientID: f[2], grant: grant)
        }
    }

    public static func write(_ entries: [Entry], to path: String) throws(SystemError) {
        let text = entries.map(\.fields).filter { fields in
            fields.allSatisfy { !$0.contains("\t") && !$0.contains("\n") && !$0.contains("\r") }
        }.map { $0.joined(separator: "\t") + "\n" }.joined()
        try FileSystem.writeAtomically(path, text: text, permissions: 0o600)
    }
}
