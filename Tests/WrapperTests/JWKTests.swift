import JSONKit
import LinkRouterCore
import OpenSSLKit
import Testing

@Suite("Crypto: public keys from JWKs")
struct JWKTests {
    typealias T = JOSETesting

    func refusal(_ jwk: String) -> JOSEError? { T.refusal { _ = try T.key(jwk) } }

    @Test("RSA, P-256 and Ed25519 keys import with their metadata")
    func imports() throws {
        let rsa = try T.key(JOSEVectors.ps256JWK)
        #expect(rsa.type == .rsa)
        #expect(rsa.bits == 2048)
        #expect(rsa.keyID == "ps256-test")
        #expect(rsa.algorithm == "PS256")
        #expect(rsa.use == "sig")
        #expect(rsa.fits(.ps256))
        #expect(!rsa.fits(.rs256))  // its JWK says PS256 only
        let ec = try T.key(JOSEVectors.es256JWK)
        #expect(ec.type == .p256)
        #expect(ec.bits == 256)
        #expect(ec.keyID == nil)
        #expect(ec.fits(.es256) && !ec.fits(.rs256))
        let ed = try T.key(JOSEVectors.edDSAJWK)
        #expect(ed.type == .ed25519)
        #expect(ed.fits(.edDSA))
    }

    @Test("an RSA modulus under 2048 bits is refused")
    func weakRSA() throws {
        // Any 1024-bit odd number: the size is checked before anything else about it.
        let n1024 = Base64URL.encode([0xC5] + [UInt8](repeating: 0x5A, count: 126) + [0x01])
        let error = refusal(#"{"kty":"RSA","n":"\#(n1024)","e":"AQAB"}"#)
        #expect(error?.code == .invalidKey)
        #expect(error?.message.contains("1024-bit") == true)
        #expect(error?.message.contains("2048") == true)
        // 2047 bits: still too small.
        let n2047 = Base64URL.encode([0x45] + [UInt8](repeating: 0x5A, count: 254) + [0x01])
        #expect(refusal(#"{"kty":"RSA","n":"\#(n2047)","e":"AQAB"}"#)?.code == .invalidKey)
        // Far too big: refused before import.
        let huge = Base64URL.encode([UInt8](repeating: 0xFF, count: 2048))
        #expect(refusal(#"{"kty":"RSA","n":"\#(huge)","e":"AQAB"}"#)?.message.contains("at most 8192") == true)
        // An even modulus fails OpenSSL's public-key check.
        let even = Base64URL.encode([0xC5] + [UInt8](repeating: 0x5A, count: 255))
        #expect(refusal(#"{"kty":"RSA","n":"\#(even)","e":"AQAB"}"#)?.code == .invalidKey)
        // So does an even exponent.
        #expect(refusal(#"{"kty":"RSA","n":"\#(JOSEVectors.rs256N)","e":"AQAA"}"#)?.code == .invalidKey)
    }

    @Test("an EC point not on P-256 is refused")
    func offCurve() throws {
        var y = Base64URL.decode(JOSEVectors.es256Y)!
        y[31] ^= 0x01
        let error = refusal(#"{"kty":"EC","crv":"P-256","x":"\#(JOSEVectors.es256X)","y":"\#(Base64URL.encode(y))"}"#)
        #expect(error?.code == .invalidKey)
        #expect(error?.message.contains("P-256") == true)
        // (0, 0) is not on the curve either; short coordinates are refused by size.
        let zero = Base64URL.encode([UInt8](repeating: 0, count: 32))
        #expect(refusal(#"{"kty":"EC","crv":"P-256","x":"\#(zero)","y":"\#(zero)"}"#)?.code == .invalidKey)
        #expect(refusal(#"{"kty":"EC","crv":"P-256","x":"AQ","y":"AQ"}"#)?.code == .invalidKey)
    }

    @Test("a JWK with private members is refused: a published private key is compromised")
    func privateMembers() {
        let error = refusal(
            #"{"kty":"EC","crv":"P-256","x":"\#(JOSEVectors.es256X)","y":"\#(JOSEVectors.es256Y)","d":"\#(JOSEVectors.es256D)"}"#
        )
        #expect(error?.code == .invalidKey)
        #expect(error?.message.contains("\"d\"") == true)
        #expect(refusal(#"{"kty":"RSA","n":"\#(JOSEVectors.rs256N)","e":"AQAB","p":"AQAB"}"#)?.code == .invalidKey)
    }

    @Test("types and curves we do not verify with are unsupported, not invalid")
    func unsupported() {
        for jwk in [
            #"{"kty":"oct","k":"AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"}"#,
            #"{"kty":"EC","crv":"P-384","x":"AQ","y":"AQ"}"#,
            #"{"kty":"OKP","crv":"X25519","x":"AQ"}"#,
            #"{"kty":"OKP","crv":"Ed448","x":"AQ"}"#,
            #"{"kty":"PQ"}"#,
        ] {
            // The oct key has "k", a private member: refused as invalid first.
            let expected: JOSEError.Code = jwk.contains("oct") ? .invalidKey : .unsupportedKey
            #expect(refusal(jwk)?.code == expected, "\(jwk)")
        }
        #expect(refusal(#"{"kty":"oct"}"#)?.code == .unsupportedKey)
    }

    @Test("missing, mistyped and badly encoded members are invalid")
    func malformed() {
        for jwk in [
            "[]",
            #"{"n":"AQAB","e":"AQAB"}"#,
            #"{"kty":"RSA","e":"AQAB"}"#,
            #"{"kty":"RSA","n":"\#(JOSEVectors.rs256N)=","e":"AQAB"}"#,
            #"{"kty":"RSA","n":"\#(JOSEVectors.rs256N)","e":"AQAB","kid":7}"#,
            #"{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHUR"}"#,
            #"{"kty":"EC","x":"\#(JOSEVectors.es256X)","y":"\#(JOSEVectors.es256Y)"}"#,
        ] {
            #expect(refusal(jwk)?.code == .invalidKey, "\(jwk)")
        }
    }
}
