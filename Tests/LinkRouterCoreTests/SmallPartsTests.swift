import LinkRouterAPI
import LinkRouterCore
import Testing

@Suite("Small parts")
struct SmallPartsTests {
    @Test("base64url without padding (RFC 4648 §10 vectors, URL alphabet)")
    func base64url() {
        #expect(Base64URL.encode([]) == "")
        #expect(Base64URL.encode(Array("f".utf8)) == "Zg")
        #expect(Base64URL.encode(Array("fo".utf8)) == "Zm8")
        #expect(Base64URL.encode(Array("foo".utf8)) == "Zm9v")
        #expect(Base64URL.encode(Array("foobar".utf8)) == "Zm9vYmFy")
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.encode([UInt8](repeating: 0xAB, count: 32)).count == 43)
    }

    @Test("constant-time equality")
    func constantTime() {
        #expect(ConstantTime.equals("abc", "abc"))
        #expect(!ConstantTime.equals("abc", "abd"))
        #expect(!ConstantTime.equals("abc", "abcd"))
        #expect(!ConstantTime.equals([1], []))
    }

    @Test("session ids are object-path elements only (D7)")
    func sessionIDs() {
        #expect(SessionID("abc_123") != nil)
        for bad in ["", "a-b", "a/b", "a.b", "é", String(repeating: "a", count: 65)] { #expect(SessionID(bad) == nil, "\(bad)") }
        #expect(SessionID(objectPath: "/org/linkrouter/LinkRouter1/sessions/abc")?.rawValue == "abc")
        #expect(SessionID(objectPath: "/org/linkrouter/LinkRouter1/sessions/a/b") == nil)
        #expect(SessionID(randomBytes: [0, 255, 16]).rawValue == "00ff10")
    }

    @Test("error codes map to stable D-Bus names and back")
    func errorNames() {
        #expect(RouterError.Code.unknownState.dbusName == "org.linkrouter.LinkRouter1.Error.UnknownState")
        for code in RouterError.Code.allCases { #expect(RouterError.Code(dbusName: code.dbusName) == code) }
        #expect(RouterError.Code(dbusName: "org.freedesktop.DBus.Error.Failed") == nil)
    }

    @Test("claimed callbacks match on scheme, host and path")
    func claimed() {
        let c = ClaimedCallbacks(text: "https://example.com/cb\nhttps://b.example/x\n")
        #expect(c.contains(uri: "https://example.com/cb?state=1&code=2"))
        #expect(c.contains(uri: "HTTPS://example.com/cb"))
        #expect(!c.contains(uri: "https://example.com/cb/"))
        #expect(!c.contains(uri: "https://example.com.evil/cb"))
        #expect(ClaimedCallbacks(text: c.text) == c)
    }
}
