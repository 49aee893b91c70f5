import LinkRouterCore
import SystemKit
import Testing

/// docs/dbus-api.md says what the option tables say: every option of each
/// method, in the table's order, with its D-Bus type and its doc line.
@Suite("docs/dbus-api.md")
struct APIDocTests {
    /// The rows of the first option table under the method's heading.
    static func documentedRows(of method: String) throws -> [String] {
        try documentedRows(file: "docs/dbus-api.md", heading: "### `\(method)(")
    }

    /// The rows of the first option table after `heading` in `file`.
    static func documentedRows(file: String, heading text: String) throws -> [String] {
        let docs = try FileSystem.readText(Paths.root + "/" + file)
        let heading = try #require(docs.firstRange(of: text), "no heading \(text) in \(file)")
        let start = try #require(docs[heading.upperBound...].firstRange(of: "| option | type | meaning |"))
        return docs[start.upperBound...].split(separator: "\n").dropFirst().prefix { $0.hasPrefix("| `") }.map(
            String.init)
    }

    static func expected<Request>(_ table: OptionTable<Request>) -> [String] {
        table.rows.map { "| `\($0.key)` | \($0.signature) | \($0.doc) |" }
    }

    @Test("the BeginSession option table is SessionRequest.options, row for row")
    func sessionOptions() throws {
        #expect(try Self.documentedRows(of: "BeginSession") == Self.expected(SessionRequest.options))
    }

    @Test("the RefreshTokens option table is RefreshRequest.options, row for row")
    func refreshOptions() throws {
        #expect(try Self.documentedRows(of: "RefreshTokens") == Self.expected(RefreshRequest.options))
    }

    @Test("the GetToken option table is TokenRequest.options, row for row")
    func tokenOptions() throws {
        #expect(try Self.documentedRows(of: "GetToken") == Self.expected(TokenRequest.options))
    }

    @Test("the SignProof option table is ProofRequest.options, row for row")
    func proofOptions() throws {
        #expect(try Self.documentedRows(of: "SignProof") == Self.expected(ProofRequest.options))
    }

    @Test("the BeginLogout option table is SessionRequest.logoutOptions, row for row")
    func logoutOptions() throws {
        #expect(try Self.documentedRows(of: "BeginLogout") == Self.expected(SessionRequest.logoutOptions))
    }

    @Test("the ForwardAgent option table is AgentForward.options, row for row")
    func forwardOptions() throws {
        #expect(try Self.documentedRows(of: "ForwardAgent") == Self.expected(AgentForward.options))
    }

    @Test("docs/accounts.md's key table is AccountRequest.options, row for row (the key files' keys)")
    func accountKeys() throws {
        #expect(
            try Self.documentedRows(file: "docs/accounts.md", heading: "## Keys")
                == Self.expected(AccountRequest.options))
    }

    @Test("README's verb table names every command `linkctl --help` lists, each at the start of a row")
    func readmeVerbs() throws {
        let help = try Subprocess.run([Paths.linkctl, "--help"])
        let commands = help.text.split(separator: "\n", omittingEmptySubsequences: false).drop { $0 != "Commands:" }
            .dropFirst().prefix { !$0.isEmpty }
            .compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(commands.count >= 20, "\(help.text)")
        let readme = try FileSystem.readText(Paths.root + "/README.md")
        let table = try #require(readme.firstRange(of: "| verb | what it does |"))
        let rows = readme[table.upperBound...].split(separator: "\n").dropFirst().prefix { $0.hasPrefix("|") }
            .map { String($0.split(separator: "|").first ?? "") }
        for command in commands {
            #expect(
                rows.contains { $0.contains("`\(command) ") || $0.contains("`\(command)`") }, "README misses \(command)"
            )
        }
    }
}
