public import LinkRouterCore
public import SystemKit

/// The person's "Always allow" answers (`AccountGrant`), one per line, in the
/// user's linkrouter directory beside the accounts (`grants.conf`, 0600):
///
///     ACCOUNT<TAB>APP<TAB>SCOPE<TAB>GRANTED_AT
///
/// `APP` is a `CallerApp` label (`flatpak:org.example.App`), `SCOPE` `-` for
/// the account's own, `GRANTED_AT` Unix seconds. Account names and app labels
/// hold no tab or newline (their own rules). A line that does not read is
/// skipped: a grant is never made up from a damaged file.
public enum GrantsFile {
    public struct Entry: Sendable, Equatable {
        public let account: String
        public let grant: AccountGrant

        public init(account: String, grant: AccountGrant) {
            self.account = account
            self.grant = grant
        }
    }

    public static func read(_ path: String) -> [Entry] {
        guard let text = try? FileSystem.readText(path, maxBytes: 1 << 20) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count == 4, (try? Account.checkName(f[0])) != nil, let app = CallerApp(label: f[1]),
                app != .host, app != .unknown, let at = Int64(f[3])
            else { return nil }
            return Entry(account: f[0], grant: AccountGrant(app: app, scope: f[2] == "-" ? nil : f[2], grantedAt: at))
        }
    }

    public static func write(_ entries: [Entry], to path: String) throws(SystemError) {
        let text = entries.map {
            "\($0.account)\t\($0.grant.app.label)\t\($0.grant.scope ?? "-")\t\($0.grant.grantedAt)\n"
        }
        .joined()
        try FileSystem.writeAtomically(path, text: text, permissions: 0o600)
    }
}
