import LinkRouterAPI
import Testing

@testable import LinkRouterCore

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
        for bad in ["", "a-b", "a/b", "a.b", "é", String(repeating: "a", count: 65)] {
            #expect(SessionID(bad) == nil, "\(bad)")
        }
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

    @Test("ByteScan finds the first byte wanted at any offset of a word, from any start, or says none")
    func byteScan() {
        for length in 0..<40 {
            for at in 0...length {
                // `at == length`: no match anywhere; earlier bytes never match.
                var bytes = [UInt8](repeating: 0x61, count: length)
                if at < length { bytes[at] = 0x0A }
                if at + 3 < length { bytes[at + 3] = 0x0A }
                bytes.withUnsafeBufferPointer { p in
                    for from in 0...length {
                        let expected = bytes[from...].firstIndex(of: 0x0A) ?? length
                        #expect(
                            ByteScan.index(of: 0x0A, in: p, from: from) == expected,
                            "length \(length), match at \(at), from \(from)")
                    }
                }
            }
        }
        // Bytes next to the one wanted, or with the high bit set (where the word test could borrow or misfire), are no
        // match.
        let near: [UInt8] = [0x09, 0x0B, 0x8A, 0x8B, 0xFA, 0xF5, 0x0B, 0x89, 0x0B, 0x0A]
        near.withUnsafeBufferPointer { #expect(ByteScan.index(of: 0x0A, in: $0, from: 0) == 9) }
    }
}
