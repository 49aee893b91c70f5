import LinkRouterCore
import SystemKit
import Testing

/// docs/dbus-api.md says what the option tables say: every option of each
/// method, in the table's order, with its D-Bus type and its doc line.
@Suite("docs/dbus-api.md")
struct APIDocTests {
    /// The rows of the first option table under the method's heading.
    static func documentedRows(of method: String) throws -> [String] {
        let docs = try FileSystem.readText(Paths.root + "/docs/dbus-api.md")
        let heading = try #require(docs.firstRange(of: "### `\(method)("), "no heading for \(method)")
        let start = try #require(docs[heading.upperBound...].firstRange(of: "| option | type | meaning |"))
        return docs[start.upperBound...].split(separator: "\n").dropFirst().prefix { $0.hasPrefix("| `") }.map(String.init)
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
}
