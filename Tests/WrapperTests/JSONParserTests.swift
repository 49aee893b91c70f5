import JSONKit
import LinkRouterCore
import Testing

@Suite("JSONKit: Jansson behind strict limits")
struct JSONParserTests {
    func parse(_ text: String, limits: JSONParser.Limits = .init()) throws(JSONError) -> JSONValue {
        try JSONParser.parse(text.utf8, limits: limits)
    }

    func refusal(_ text: String, limits: JSONParser.Limits = .init()) -> JSONError? {
        refusal(Array(text.utf8), limits: limits)
    }

    func refusal(_ bytes: [UInt8], limits: JSONParser.Limits = .init()) -> JSONError? {
        do {
            _ = try JSONParser.parse(bytes, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    @Test("objects keep member order; scalars, arrays and nesting come through")
    func values() throws {
        let value = try parse(#"{"b":[true,false,null],"a":"x\u00e9\ud83d\ude00","c":{"d":-1}}"#)
        #expect(
            value
                == .object([
                    ("b", .array([.bool(true), .bool(false), .null])),
                    ("a", .string("xé😀")),
                    ("c", .object([("d", .integer(-1))])),
                ]))
        #expect(value["a"]?.stringValue == "xé😀")
        #expect(value["c"]?["d"]?.int64Value == -1)
        #expect(value["missing"] == nil)
        #expect(try parse("\"top-level string\"") == .string("top-level string"))
    }

    @Test("duplicate member names are refused, also when spelled with an escape")
    func duplicates() {
        for text in [#"{"alg":"RS256","alg":"none"}"#, #"{"a":1,"\u0061":2}"#, #"{"x":{"k":1,"k":1}}"#] {
            let error = refusal(text)
            #expect(error?.code == .duplicateMember, "\(text)")
            #expect(error?.line == 1)
        }
        // The same name in different objects is fine.
        #expect(refusal(#"{"a":{"a":1},"b":{"a":2}}"#) == nil)
    }

    @Test("nesting deeper than the limit is refused with the path")
    func depth() throws {
        let limits = JSONParser.Limits(maxDepth: 3)
        #expect(try parse(#"{"a":[{"b":1}]}"#, limits: limits)["a"]?.arrayValue?.count == 1)
        let error = refusal(#"{"a":[{"b":[]}]}"#, limits: limits)
        #expect(error?.code == .tooDeep)
        #expect(error?.message.contains("$.a[0].b") == true)
        // Far past Jansson's own cap (2048) it stops reading by itself.
        #expect(
            refusal(
                String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000),
                limits: .init(maxDepth: 10_000))?.code == .tooDeep)
    }

    @Test("documents over the byte limit are refused before parsing")
    func size() {
        let text = "[" + String(repeating: "1,", count: 100) + "1]"
        #expect(refusal(text, limits: .init(maxBytes: text.utf8.count)) == nil)
        let error = refusal(text, limits: .init(maxBytes: text.utf8.count - 1))
        #expect(error?.code == .tooLarge)
        #expect(error?.line == nil)
        #expect(refusal("")?.code == .syntax)
    }

    @Test("more members and elements than the limit are refused")
    func members() {
        #expect(refusal(#"{"a":[1,2],"b":3}"#, limits: .init(maxMembers: 4)) == nil)
        #expect(refusal(#"{"a":[1,2],"b":3,"c":4}"#, limits: .init(maxMembers: 4))?.code == .tooManyMembers)
    }

    @Test("invalid UTF-8 is refused, in strings and out")
    func invalidUTF8() {
        let cases: [[UInt8]] = [
            Array(#"{"a":""#.utf8) + [0xFF] + Array(#""}"#.utf8),
            Array(#"[""#.utf8) + [0xC3] + Array(#""]"#.utf8),  // truncated sequence
            Array(#"[""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""]"#.utf8),  // an encoded surrogate
            Array(#"[""#.utf8) + [0xC0, 0xAF] + Array(#""]"#.utf8),  // overlong '/'
        ]
        for bytes in cases {
            #expect(refusal(bytes)?.code == .invalidUTF8, "\(bytes)")
        }
        #expect(refusal(#"["\ud800"]"#) != nil)  // a lone escaped surrogate is not a character either
    }

    @Test("U+0000 is refused in strings and in member names")
    func nul() {
        #expect(refusal(#"{"sub":"a\u0000b"}"#)?.code == .nulCharacter)
        #expect(refusal(#"{"a\u0000":1}"#)?.code == .nulCharacter)
        #expect(refusal([UInt8(ascii: "["), 0x22, 0x61, 0x00, 0x22, UInt8(ascii: "]")]) != nil)  // a raw NUL byte
    }

    @Test("integers stay exact, reals stay reals, overflow is refused")
    func numbers() throws {
        #expect(try parse("9223372036854775807") == .integer(.max))
        #expect(try parse("-9223372036854775808") == .integer(.min))
        #expect(try parse("1311281970") == .integer(1_311_281_970))
        #expect(try parse("1.0") == .number(1.0))
        #expect(try parse("1e3") == .number(1000))
        #expect(try parse("-0") == .integer(0))
        #expect(try parse("0.5").int64Value == nil)
        #expect(try parse("1e3").int64Value == 1000)
        #expect(try parse("1e19").int64Value == nil)  // integral but beyond Int64
        #expect(try parse("\"5\"").int64Value == nil)
        for big in ["9223372036854775808", "-9223372036854775809", "123456789012345678901234567890", "1e400"] {
            #expect(refusal(big)?.code == .numberOutOfRange, "\(big)")
        }
    }

    @Test("syntax errors say where and what, without quoting the document")
    func errors() {
        let error = refusal("{\n  \"nonce\": \"s3cr3t-value\" \"x\"\n}")
        #expect(error?.code == .syntax)
        #expect(error?.line == 2)
        #expect(error?.column != nil)
        #expect(error?.description.contains("s3cr3t") == false)
        #expect(error?.description.contains("line 2") == true)
        #expect(refusal("{} x")?.code == .syntax)  // trailing text (JSON_DISABLE_EOF_CHECK is off)
        #expect(refusal("[1,]")?.code == .syntax)
        #expect(refusal("{'a':1}")?.code == .syntax)
    }

    @Test(
        "encode is compact, keeps order, and round-trips",
        arguments: [
            #"{"b":1,"a":[true,false,null,"x"],"c":{"d":-9223372036854775808}}"#,
            #"[0.1,1.0,-2.5e-300,1.7976931348623157e308,5e-324]"#,
            #""snow\u2603 \"quoted\" back\\slash tab\t line\n ctl\u0001 emoji😀""#,
            #"{"":{},"e":[]}"#,
            "42",
        ])
    func roundTrip(text: String) throws {
        let value = try parse(text)
        let encoded = JSONParser.encode(value)
        #expect(try parse(encoded) == value)
        #expect(JSONParser.encode(try parse(encoded)) == encoded)
        #expect(!encoded.contains(" ") || text.contains(" "))
    }

    @Test("encode: exact text for a known value")
    func encodeText() {
        #expect(
            JSONParser.encode(
                .object([("alg", .string("ES256")), ("n", .integer(1)), ("r", .number(1)), ("é", .bool(true))]))
                == #"{"alg":"ES256","n":1,"r":1.0,"é":true}"#)
        #expect(JSONParser.encode(.array([.number(.nan), .number(.infinity)])) == "[null,null]")
        #expect(JSONParser.encode(.string("")) == #""""#)
    }
}
