import SystemKit
import Testing

/// docs/security.md maps every threat-model row to its test; this keeps the
/// map true as tests are renamed or added.
@Suite("docs/security.md")
struct SecurityDocTests {
    static let rows = [("U", 10), ("S", 9), ("R", 6), ("D", 7), ("L", 6), ("E", 3), ("P", 6), ("X", 3)]
        .flatMap { group, count in (1...count).map { "\(group)\($0)" } }

    /// Every test's display name in Tests/IntegrationTests/ThreatModel.
    static func testNames() throws -> [String] {
        let dir = Paths.root + "/Tests/IntegrationTests/ThreatModel"
        var names: [String] = []
        for file in FileSystem.list(dir) where file.hasSuffix(".swift") {
            // `@Test("name"` — the formatter may put the name on the next line.
            for piece in try FileSystem.readText(dir + "/" + file).split(separator: "@Test(").dropFirst() {
                let rest = piece.drop { $0 == " " || $0 == "\n" }
                guard rest.first == "\"" else { continue }
                names.append(String(rest.dropFirst().prefix { $0 != "\"" }))
            }
        }
        return names
    }

    @Test("every one of the 50 rows has a test named with its id, and the document names that test in the row's line")
    func map() throws {
        let names = try Self.testNames()
        let doc = try FileSystem.readText(Paths.root + "/docs/security.md")
        let lines = doc.split(separator: "\n").filter { $0.hasPrefix("| ") }
        #expect(Self.rows.count == 50)
        for row in Self.rows {
            let tests = names.filter { $0.hasPrefix(row + ": ") }
            #expect(tests.count == 1, "\(row): \(tests.count) tests")
            guard let test = tests.first else { continue }
            let listed = lines.contains { $0.hasPrefix("| \(row) | \(test) |") }
            #expect(listed, "docs/security.md has no line \"| \(row) | \(test) |\"")
        }
        // And the document names no test that does not exist.
        for line in lines {
            let cells = line.split(separator: "|").map { $0.trimmingSpaces }
            guard cells.count >= 2, Self.rows.contains(String(cells[0])) || cells[0].contains("/") else { continue }
            let exists = names.contains(cells[1])
            #expect(exists, "docs/security.md names a test that does not exist: \(cells[1])")
        }
    }
}

extension SecurityDocTests {
    @Test(
        "every consent row (C1–C9, issue 44) names tests that exist, each in the file the row names, and every row has one"
    )
    func consentRows() throws {
        let doc = try FileSystem.readText(Paths.root + "/docs/security.md")
        let lines = doc.split(separator: "\n").filter { $0.hasPrefix("| C") }
        var rows: Set<String> = []
        for line in lines {
            let cells = line.split(separator: "|").map { $0.trimmingSpaces }
            guard cells.count >= 3 else {
                Issue.record("a consent row with too few cells: \(line)")
                continue
            }
            rows.insert(cells[0])
            let file = ["IntegrationTests", "LinkRouterCoreTests"].map { Paths.root + "/Tests/\($0)/" + cells[2] }
                .first(where: FileSystem.exists)
            let text = try file.map { try FileSystem.readText($0) } ?? ""
            #expect(
                text.contains("\"" + cells[1] + "\""),
                "docs/security.md: \(cells[0]) names a test \(cells[2]) does not have: \(cells[1])")
        }
        #expect(rows == Set((1...9).map { "C\($0)" }), "\(rows.sorted())")
    }
}

extension Substring {
    var trimmingSpaces: String {
        var s = self
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
