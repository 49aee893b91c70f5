public import LinkRouterCore
public import SystemKit

/// The person's "Always allow" answers (`AccountGrant`), one per line, in the
/// user's linkrouter directory beside the accounts (`grants.conf`, 0600):
///
///     v2<TAB>ACCOUNT<TAB>APP<TAB>GRANTED_AT<TAB>KEY=VALUE<TAB>KEY=VALUE…
///
/// `APP` is a `CallerApp` label (`flatpak:org.example.App`), `GRANTED_AT`
/// Unix seconds. The `KEY=VALUE` fields are, first, the declaration the grant
/// was given for (`Account.grantBinding`: `issuer=`, `client_id=`, `scope=`,
/// … in the declaration's order), then what the person was asked about:
/// `grant.scope=`, a `grant.resource=` per resource, `grant.audience=`
/// (none of them: the account's own token). A grant applies to an account of
/// that name whose declaration is still exactly that one (the same name
/// declared again for another provider, client or a wider scope is not the
/// account the person allowed), and covers what it names and no more (issue
/// 44). Lines of the first version (six fields, no `v2`) kept neither the
/// whole target nor the declaration: they are not read (the app is asked
/// once more), and the next change drops them. A field with a tab or a line
/// break is never written (none can hold one by its own rules), and a line
/// that does not read is skipped: a grant is never made up from a damaged file.
public enum GrantsFile {
    public struct Entry: Sendable, Equatable {
        public let account: String
        /// The declaration's lines it is bound to (`Account.grantBinding`).
        public let binding: [Line]
        public let grant: AccountGrant

        /// One `KEY=VALUE` of the declaration.
        public struct Line: Sendable, Equatable {
            public let key: String
            public let value: String
        }

        public init(account: Account, grant: AccountGrant) {
            self.account = account.name
            binding = account.grantBinding.map { Line(key: $0.key, value: $0.value) }
            self.grant = grant
        }

        init(account: String, binding: [Line], grant: AccountGrant) {
            self.account = account
            self.binding = binding
            self.grant = grant
        }

        /// Whether it is `account`'s: the same name, declared exactly as when the person allowed it.
        public func isFor(_ account: Account) -> Bool {
            self.account == account.name && binding == account.grantBinding.map { Line(key: $0.key, value: $0.value) }
        }

        var fields: [String] {
            let target = grant.target
            let covers =
                (target.scope.map { ["grant.scope=" + $0] } ?? []) + target.resources.map { "grant.resource=" + $0 }
                + (target.audience.map { ["grant.audience=" + $0] } ?? [])
            return ["v2", account, grant.app.label, String(grant.grantedAt)] + binding.map { $0.key + "=" + $0.value }
                + covers
        }
    }

    public static func read(_ path: String) -> [Entry] {
        guard let text = try? FileSystem.readText(path, maxBytes: 1 << 20) else { return [] }
        return text.split(separator: "\n").compactMap { entry(String($0)) }
    }

    /// One line, read; nil for a line of the first version or one that does not read.
    static func entry(_ line: String) -> Entry? {
        let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard f.count >= 4, f[0] == "v2", (try? Account.checkName(f[1])) != nil,
            let app = CallerApp(label: f[2]), app.isSandboxed, let at = Int64(f[3])
        else { return nil }
        var binding: [Entry.Line] = []
        var scope: String?
        var resources: [String] = []
        var audience: String?
        for field in f.dropFirst(4) {
            guard let eq = field.firstIndex(of: "=") else { return nil }
            let (key, value) = (String(field[..<eq]), String(field[field.index(after: eq)...]))
            switch key {
            case "grant.scope": scope = value
            case "grant.resource": resources.append(value)
            case "grant.audience": audience = value
            default: binding.append(Entry.Line(key: key, value: value))
            }
        }
        guard binding.contains(where: { $0.key == "issuer" }), binding.contains(where: { $0.key == "client_id" }),
            let target = try? TokenTarget.make(
                scope: scope, resources: resources, audience: audience, granted: scope ?? "", account: f[1])
        else { return nil }
        return Entry(account: f[1], binding: binding, grant: AccountGrant(app: app, target: target, grantedAt: at))
    }

    public static func write(_ entries: [Entry], to path: String) throws(SystemError) {
        let text = entries.map(\.fields).filter { fields in
            fields.allSatisfy { !$0.contains("\t") && !$0.contains("\n") && !$0.contains("\r") }
        }.map { $0.joined(separator: "\t") + "\n" }.joined()
        try FileSystem.writeAtomically(path, text: text, permissions: 0o600)
    }

    /// Reads the file at `path`, changes its grants and writes them back, when they changed (the directory made,
    /// 0700, where needed). The one way the daemon (`Accounts`) and linkctl without a daemon (`account remove`)
    /// change it.
    public static func change(_ path: String, _ change: ([Entry]) -> [Entry]) throws(SystemError) {
        let before = read(path)
        let after = change(before)
        guard after != before else { return }
        try FileSystem.makeDirectories(FileSystem.directoryName(path), permissions: 0o700)
        try write(after, to: path)
    }
}
