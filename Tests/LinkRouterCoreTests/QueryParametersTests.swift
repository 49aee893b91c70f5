import LinkRouterCore
import Testing

@Suite("Query parameters")
struct QueryParametersTests {
    @Test("pairs keep raw bytes and decoded values")
    func pairs() throws {
        let q = try QueryParameters.parse("a=1&b=x%20y&c&d=&&e=%2B")
        #expect(q.pairs.map(\.name) == ["a", "b", "c", "d", "e"])
        #expect(q.pairs[1].rawValue == "x%20y" && q.pairs[1].value == "x y")
        #expect(q.pairs[2].rawValue == nil && q.pairs[2].raw == "c")
        #expect(try q.single("d") == nil)
        #expect(try q.single("e") == "+")
        #expect(try q.single("missing") == nil)
    }

    @Test("a parameter given twice is an error (U1)")
    func duplicate() throws {
        let q = try QueryParameters.parse("state=S&state=S2")
        #expect(throws: RouterError.self) { try q.single("state") }
        // An encoded name is the same name.
        let r = try QueryParameters.parse("state=S&st%61te=S")
        #expect(throws: RouterError.self) { try r.single("state") }
    }

    @Test("limits on count and size (U6)")
    func limits() {
        let many = (0..<33).map { "p\($0)=1" }.joined(separator: "&")
        #expect(throws: RouterError.self) { try QueryParameters.parse(many) }
        let big = "code=" + String(repeating: "a", count: 2049)
        #expect(throws: RouterError.self) { try QueryParameters.parse(big) }
        #expect(throws: Never.self) { try QueryParameters.parse("code=" + String(repeating: "a", count: 2048)) }
    }
}
