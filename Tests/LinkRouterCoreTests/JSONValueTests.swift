import LinkRouterCore
import Testing

@Suite("JSONValue: accessors and equality")
struct JSONValueTests {
    let value = JSONValue.object([
        ("iss", .string("https://issuer.example")),
        ("exp", .integer(1_311_281_970)),
        ("iat", .number(1_311_280_970.0)),
        ("auth_time", .number(1.5)),
        ("aud", .array([.string("a"), .string("b")])),
    ])

    @Test("accessors answer only for their own case")
    func accessors() {
        #expect(value["iss"]?.stringValue == "https://issuer.example")
        #expect(value["exp"]?.int64Value == 1_311_281_970)
        #expect(value["iat"]?.int64Value == 1_311_280_970)
        #expect(value["auth_time"]?.int64Value == nil)
        #expect(value["aud"]?.arrayValue?.count == 2)
        #expect(value["exp"]?.stringValue == nil)
        #expect(value["iss"]?.int64Value == nil)
        #expect(value.objectValue?.map(\.0) == ["iss", "exp", "iat", "auth_time", "aud"])
        #expect(JSONValue.array([])["iss"] == nil)
        #expect(JSONValue.number(.infinity).int64Value == nil)
    }

    @Test("equality is structural: order counts, integer 1 is not real 1")
    func equality() {
        #expect(value == value)
        #expect(JSONValue.object([("a", .null), ("b", .null)]) != .object([("b", .null), ("a", .null)]))
        #expect(JSONValue.integer(1) != .number(1))
        #expect(JSONValue.object([("a", .null)]) != .object([("a", .null), ("b", .null)]))
        #expect(JSONValue.array([.bool(true)]) == .array([.bool(true)]))
    }
}
