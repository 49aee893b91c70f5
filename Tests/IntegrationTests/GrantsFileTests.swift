import Glibc
import LinkRouterCore
import LinkRouterFiles
import SystemKit
import Testing

/// The person's grants on disk (`GrantsFile`).
@Suite("The grants file")
struct GrantsFileTests {
    static func account(_ issuer: String, client: String = "cli", scope: String? = nil) throws -> Account {
        var r = AccountRequest()
        r.issuer = issuer
        r.clientID = client
        r.scope = scope
        return try Account.make(name: "work", r, owner: .user)
    }

    static func target(scope: String? = nil, resources: [String] = [], audience: String? = nil) throws -> TokenTarget {
        try TokenTarget.make(
            scope: scope, resources: resources, audience: audience, granted: "openid profile email", account: "work")
    }

    @Test(
        "written and read back per account as the person declared it (name, issuer, client, scope…) with the whole target (scope, resources, audience); a line of the first version, or a damaged one, is not read; a change that drops an account's grants keeps the others"
    )
    func roundTrip() throws {
        let dir = "/tmp/lr-grants-\(getpid())"
        try FileSystem.makeDirectories(dir, permissions: 0o700)
        defer { _ = try? Subprocess.run(["rm", "-rf", dir]) }
        let path = dir + "/grants.conf"
        let work = try Self.account("https://id.example.com")
        let app = CallerApp.flatpak("org.example.IDE")
        let entries = [
            GrantsFile.Entry(account: work, grant: AccountGrant(app: app, target: TokenTarget(), grantedAt: 1)),
            GrantsFile.Entry(
                account: work,
                grant: AccountGrant(
                    app: .flatpak("org.example.Two"), target: try Self.target(scope: "openid"), grantedAt: 2)),
            GrantsFile.Entry(
                account: work,
                grant: AccountGrant(
                    app: .flatpak("org.example.Three"),
                    target: try Self.target(resources: ["https://b.example/", "https://a.example/"], audience: "cal"),
                    grantedAt: 3)),
        ]
        try GrantsFile.write(entries, to: path)
        let read = GrantsFile.read(path)
        #expect(read == entries, "\(read)")
        #expect(read[2].grant.target.resources == ["https://a.example/", "https://b.example/"])
        #expect(read[2].grant.target.audience == "cal" && read[2].grant.target.scope == nil)
        #expect(read.allSatisfy { $0.isFor(work) })
        #expect(!read[0].isFor(try Self.account("https://other.example.com")), "another issuer is another account")
        #expect(!read[0].isFor(try Self.account("https://id.example.com", client: "other")))
        #expect(
            !read[0].isFor(try Self.account("https://id.example.com", scope: "openid offline_access")),
            "the same name declared again with a wider scope is not the account the person allowed")
        let text = try FileSystem.readText(path)
        #expect(text.split(separator: "\n").count == 3 && text.hasPrefix("v2\twork\tflatpak:org.example.IDE\t1\t"))
        // The first version's line (no whole target, no declaration) and damaged ones are not read.
        try FileSystem.writeAtomically(
            path,
            text: text + "work\thttps://id.example.com\tcli\tflatpak:org.example.Old\t\t4\n"
                + "v2\twork\tflatpak:org.example.X\tnot-a-time\tissuer=https://id.example.com\tclient_id=cli\n"
                + "v2\twork\tflatpak:org.example.Y\t5\tclient_id=cli\n"
                + "v2\twork\thost\t5\tissuer=https://id.example.com\tclient_id=cli\n"
                + "v2\twork\tflatpak:org.example.Z\t5\tissuer=https://id.example.com\tclient_id=cli\tgrant.resource=not a uri\n",
            permissions: 0o600)
        #expect(GrantsFile.read(path) == entries)
        #expect(FileSystem.status(path)?.permissions == 0o600)

        // What linkctl account remove does without a daemon (and the daemon at RemoveAccount): the name's grants go.
        try GrantsFile.change(path) { $0.filter { $0.account != "work" } }
        let emptied = try FileSystem.readText(path)
        #expect(GrantsFile.read(path).isEmpty && emptied.isEmpty)
    }

    @Test(
        "linkctl account remove with no daemon to ask removes the account's file and its grants (a later account of that name is not the one the person allowed); other accounts' grants stay"
    )
    func removeWithoutDaemon() throws {
        let desktop = try TestDesktop()
        let grants = desktop.configHome + "/linkrouter/grants.conf"
        for name in ["work", "home"] {
            let r = try desktop.linkctl(
                "account", "add", name, "--issuer", "https://id.example.com", "--client-id", "cli-\(name)")
            #expect(r.status == 0, "\(r.errorText)")
        }
        let accounts = try ["work", "home"].map { name in
            var r = AccountRequest()
            r.issuer = "https://id.example.com"
            r.clientID = "cli-\(name)"
            return try Account.make(name: name, r, owner: .user)
        }
        try GrantsFile.write(
            accounts.map {
                GrantsFile.Entry(
                    account: $0,
                    grant: AccountGrant(app: .flatpak("org.example.IDE"), target: TokenTarget(), grantedAt: 1))
            }, to: grants)
        let removed = try desktop.linkctl("account", "remove", "work")
        #expect(removed.status == 0, "\(removed.errorText)")
        let left = GrantsFile.read(grants)
        #expect(left.map(\.account) == ["home"], "\(left)")
    }
}
