import LinkRouterCore
import SystemKit
import Testing

/// docs/dbus-api.md says what the option table says: every `BeginSession`
/// option, in the table's order, with its D-Bus type and its doc line.
@Suite("docs/dbus-api.md")
struct APIDocTests {
    @Test("the BeginSession option table is SessionOption.all, row for row")
    func optionTable() throws {
        let docs = try FileSystem.readText(Paths.root + "/docs/dbus-api.md")
        let start = try #require(docs.firstRange(of: "| option | type | meaning |"))
        let rows = docs[start.upperBound...].split(separator: "\n").dropFirst().prefix { $0.hasPrefix("| `") }.map(String.init)
        let expected = SessionOption.all.map { "| `\($0.key)` | \($0.value.signature) | \($0.doc) |" }
        #expect(rows == expected)
    }
}
