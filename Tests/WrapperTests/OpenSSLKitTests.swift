import LinkRouterCore
import OpenSSLKit
import Testing

@Suite("OpenSSLKit: PKCE and randomness (S8)")
struct CryptoTests {
    @Test("RFC 7636 Appendix B: the verifier's S256 challenge")
    func appendixB() throws {
        #expect(
            try SecretFactory.challenge(for: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
                == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test("SHA-256 of a known string (FIPS 180-2 'abc')")
    func sha256() throws {
        #expect(
            Hex.encode(try SHA256.hash("abc")) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test("secrets: 256-bit, base64url, 43 characters, a verifier's challenge matches")
    func secrets() throws {
        let s = try SecretFactory.make(withVerifier: true)
        for v in [s.state, s.nonce, s.codeVerifier!] {
            #expect(v.count == 43)
            #expect(Base64URL.isEncoded(v))
        }
        #expect(s.codeChallenge == (try SecretFactory.challenge(for: s.codeVerifier!)))
        #expect(s.id.rawValue.count == 32)
        #expect(try SecretFactory.make(withVerifier: false).codeVerifier == nil)
    }

    @Test("100,000 states without a duplicate")
    func unique() throws {
        var seen = Set<String>()
        seen.reserveCapacity(100_000)
        for _ in 0..<100_000 { seen.insert(try SecretFactory.token()) }
        #expect(seen.count == 100_000)
    }
}
