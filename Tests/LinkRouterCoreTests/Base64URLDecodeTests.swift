import LinkRouterCore
import Testing

@Suite("Base64URL.decode: one canonical spelling per byte string")
struct Base64URLDecodeTests {
    @Test("RFC 4648 §10 vectors, URL alphabet, no padding")
    func vectors() {
        #expect(Base64URL.decode("") == [])
        #expect(Base64URL.decode("Zg") == Array("f".utf8))
        #expect(Base64URL.decode("Zm8") == Array("fo".utf8))
        #expect(Base64URL.decode("Zm9v") == Array("foo".utf8))
        #expect(Base64URL.decode("Zm9vYmFy") == Array("foobar".utf8))
        #expect(Base64URL.decode("-_8") == [0xFB, 0xFF])
    }

    @Test("decode inverts encode for every length up to 64")
    func roundTrip() {
        for count in 0...64 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
    }

    @Test(
        "refused: padding, the base64 alphabet, whitespace, a lone character, unused bits set",
        arguments: [
            "Zg==", "Zm8=", "Zg=", "+/8", "Zm9v\n", " Zm9v", "Z", "Zm9vY", "Zh", "Zm9", "Zm-", "=",
        ])
    func refused(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}
