import LinkRouterCore
import Testing

@Suite("Percent-encoding")
struct PercentEncodingTests {
    @Test("decodes escapes and form plus")
    func decode() throws {
        #expect(try PercentEncoding.decode("a%20b", form: false) == "a b")
        #expect(try PercentEncoding.decode("a+b", form: true) == "a b")
        #expect(try PercentEncoding.decode("a+b", form: false) == "a+b")
        #expect(try PercentEncoding.decode("%C3%A9", form: true) == "é")
        #expect(
            try PercentEncoding.decode("https%3A%2F%2Fapi.vipps.no%2Fx%3Fa%3D1", form: true)
                == "https://api.vipps.no/x?a=1")
    }

    @Test(
        "malformed or hostile values are errors, never nil or empty (U4, U5)",
        arguments: [
            "a%FF", "%zz", "%", "%4", "ab%00cd", "%0A", "%0d", "%7F", "%C3", "%ED%A0%80",
        ])
    func refused(_ raw: String) {
        #expect(throws: RouterError.self) { try PercentEncoding.decode(Substring(raw), form: true) }
    }

    @Test("encode keeps only unreserved characters")
    func encode() {
        #expect(PercentEncoding.encode("a b/c?d=e&f~g.h-i_j") == "a%20b%2Fc%3Fd%3De%26f~g.h-i_j")
        #expect(PercentEncoding.encode("é") == "%C3%A9")
        #expect(PercentEncoding.encode("com.example.app:/cb") == "com.example.app%3A%2Fcb")
    }

    @Test("encode and decode are inverses", arguments: ["", "plain", "a b+c", "ü∂ 😀", "%41", "x=y&z"])
    func roundTrip(_ text: String) throws {
        #expect(try PercentEncoding.decode(Substring(PercentEncoding.encode(text)), form: false) == text)
    }
}
