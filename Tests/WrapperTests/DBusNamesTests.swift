import DBusKit
import Testing

/// The Swift name types against libdbus's own validators, table-driven.
@Suite("D-Bus names and signatures")
struct DBusNamesTests {
    static let paths = [
        "/", "/org", "/org/linkrouter/LinkRouter1", "/a_b/C9", "", "org", "/org/", "//", "/a//b", "/a-b", "/é", "/a.b",
        "/a b", "/org/linkrouter/LinkRouter1/sessions/00ff",
    ]
    static let interfaces = [
        "org.linkrouter.LinkRouter1", "a.b", "a", "a..b", ".a.b", "a.b.", "a.1b", "a.b-c", "a.b_c", "A.B",
        String(repeating: "a.", count: 128) + "a",
    ]
    static let members = ["Route", "_x", "a1", "1a", "", "a.b", "a-b", "é"]
    static let busNames = [
        "org.linkrouter.LinkRouter1", ":1.42", ":1.1a", "a.b-c", "a", "a.1b", ":a", "org..x", ".org.x", ":", ":.a",
        ":a.", ":a..b", ":1.2-3", "a.b.", "-a.b",
    ]
    static let signatures = [
        "", "s", "a{sv}", "a(oss)", "(s)", "()", "a", "{sv}", "a{vs}", "a{sv", "ss)", "aaa{sa{sv}}", "z", "h",
        String(repeating: "a", count: 33) + "s",
        String(repeating: "(", count: 33) + "s" + String(repeating: ")", count: 33),
    ]

    @Test("object paths", arguments: paths)
    func objectPaths(_ s: String) { #expect(ObjectPath.isValid(s) == LibdbusValidation.isValidPath(s)) }

    @Test("interface (and error) names", arguments: interfaces)
    func interfaceNames(_ s: String) { #expect(InterfaceName.isValid(s) == LibdbusValidation.isValidInterface(s)) }

    @Test("member names", arguments: members)
    func memberNames(_ s: String) { #expect(MemberName.isValid(s) == LibdbusValidation.isValidMember(s)) }

    @Test("bus names", arguments: busNames)
    func busNamesMatch(_ s: String) { #expect(BusName.isValid(s) == LibdbusValidation.isValidBusName(s)) }

    @Test("signatures", arguments: signatures)
    func signaturesMatch(_ s: String) { #expect((DBusSignature(s) != nil) == LibdbusValidation.isValidSignature(s)) }
}

@Suite("D-Bus messages without a bus")
struct DBusMessageTests {
    @Test("values survive marshalling and libdbus's validation")
    func roundTrip() throws {
        let values: [DBusValue] = [
            .byte(7), .boolean(true), .int16(-2), .uint16(3), .int32(-4), .uint32(5), .int64(-6), .uint64(7),
            .double(1.5),
            .string("héllo"), .objectPath(ObjectPath("/a/b")), .signature(DBusSignature("a{sv}")),
            .vardict([("k", .string("v")), ("n", .uint32(1)), ("list", .stringArray(["a", "b"]))]),
            .array(
                element: DBusSignature("(oss)"),
                [.structure([.objectPath(ObjectPath("/x")), .string("s"), .string("t")])]),
            .array(element: DBusSignature("s"), []), .variant(.variant(.int32(1))),
        ]
        let m = DBusMessage.methodCall(
            "org.linkrouter.LinkRouter1", "/org/linkrouter/LinkRouter1", "org.linkrouter.LinkRouter1", "Route")
        try m.append(contentsOf: values)
        m.serial = 1
        let back = try DBusMessage.demarshal(try m.marshal())
        #expect(try back.arguments() == values)
        #expect(back.signature == values.map(\.signature).joined())
        #expect(back.member == "Route" && back.path == "/org/linkrouter/LinkRouter1")
    }

    @Test("what libdbus would abort on is refused before it sees it (D7)")
    func refusedBeforeLibdbus() throws {
        let m = DBusMessage.methodCall(nil, "/", nil, "X")
        #expect(throws: DBusError.self) { try m.append(.string("a\u{0}b")) }
        #expect(throws: DBusError.self) { try m.append(.array(element: DBusSignature("s"), [.int32(1)])) }
        #expect(throws: DBusError.self) { try m.append(.structure([])) }
        #expect(throws: DBusError.self) { try m.makeError(name: "not an error name", message: "x") }
        #expect(throws: DBusError.self) { try DBusMessage.demarshal([0x6c, 1, 0, 1, 0xff, 0xff, 0xff, 0xff]) }
    }
}
