import Glibc
import LinkRouterCore
import LinkRouterFiles
import SystemKit
import Testing

/// The person's grants on disk (`GrantsFile`).
@Suite("The grants file")
struct GrantsFileTests {
    static func account(_ issuer: String, client: String = "cli") throws -> Account {
        var r = AccountRequest()
        r.issuer = issuer
        r.clientID = client
        return try Account.make(name: "work", r, owner: .user)
    }

    @Test(
        "written and read back per account as the person knew it (name, issuer, client); a field with a tab or a line break is never written, and a damaged line is skipped"
    )
    func roundTrip() throws {
        let dir = "/tmp/lr-grants-\(getpid())"
        try FileSystem.makeDirectories(dir, permissions: 0o700)
        defer { _ = try? Subprocess.run(["rm", "-rf", dir]) }
        let path = dir + "/grants.conf"
        let work = try Self.account("https://id.example.com")
        let app = CallerApp.flatpak("org.example.IDE")
        let entries = [
            GrantsFile.Entry(account: work, grant: AccountGrant(app: app, scope: nil, grantedAt: 1)),
            GrantsFile.Entry(
                account: work, grant: AccountGrant(app: .flatpak("org.example.Two"), scope: "openid", grantedAt: 2)),
            // A scope that would add a line of its own (the core refuses it before; the file never takes it).
            GrantsFile.Entry(
                account: work, grant: AccountGrant(app: app, scope: "openid\nbank\tflatpak:evil", grantedAt: 3)),
        ]
        try GrantsFile.write(entries, to: path)
        let read = GrantsFile.read(path)
        #expect(read == Array(entries.prefix(2)), "\(read)")
        #expect(read.allSatisfy { $0.isFor(work) })
        #expect(!read[0].isFor(try Self.account("https://other.example.com")), "another issuer is another account")
        #expect(!read[0].isFor(try Self.account("https://id.example.com", client: "other")))
        let text = try FileSystem.readText(path)
        #expect(!text.contains("evil") && text.split(separator: "\n").count == 2)
        try FileSystem.writeAtomically(path, text: text + "work\tx\n\tbroken\n", permissions: 0o600)
        #expect(GrantsFile.read(path).count == 2)
        #expect(FileSystem.status(path)?.permissions == 0o600)
    }
}
