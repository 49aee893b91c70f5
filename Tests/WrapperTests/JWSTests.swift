import JOSE
import JSONKit
import LinkRouterCore
import OpenSSLKit
import Testing

@Suite("JOSE: JWS compact verification")
struct JWSTests {
    typealias T = JOSETesting

    /// One signed vector, the key that verifies it, an unrelated key of the
    /// same type, and another alg to claim in its header.
    struct Vector: Sendable, CustomTestStringConvertible {
        let alg: String
        let token: String
        let jwk: String
        let wrongJWK: String
        let payload: String
        let otherAlg: String
        /// What claiming `otherAlg` fails with: the same key type means the
        /// signature is checked the other way and fails; another type means no key fits.
        let otherAlgCode: JOSEError.Code
        var testDescription: String { alg }
    }

    static let vectors: [Vector] = [
        Vector(
            alg: "RS256", token: JOSEVectors.rs256Token, jwk: JOSEVectors.rs256JWK,
            wrongJWK: #"{"kty":"RSA","n":"\#(JOSEVectors.ps256N)","e":"AQAB"}"#,
            payload: JOSEVectors.a1Payload, otherAlg: "PS256", otherAlgCode: .invalidSignature),
        Vector(
            alg: "PS256", token: JOSEVectors.ps256Token, jwk: JOSEVectors.ps256JWK,
            wrongJWK: #"{"kty":"RSA","kid":"ps256-test","n":"\#(JOSEVectors.rs256N)","e":"AQAB"}"#,
            payload:
                #"{"iss":"https://issuer.example","sub":"248289761001","aud":"linkrouter","nonce":"n-0S6_WzA2Mj","exp":1311281970,"iat":1311280970}"#,
            otherAlg: "RS256", otherAlgCode: .noMatchingKey),  // the JWK declares alg PS256
        Vector(
            alg: "ES256", token: JOSEVectors.es256Token, jwk: JOSEVectors.es256JWK, wrongJWK: JOSEVectors.otherP256JWK,
            payload: JOSEVectors.a1Payload, otherAlg: "RS256", otherAlgCode: .noMatchingKey),
        Vector(
            alg: "EdDSA", token: JOSEVectors.edDSAToken, jwk: JOSEVectors.edDSAJWK,
            wrongJWK: JOSEVectors.otherEd25519JWK,
            payload: "Example of Ed25519 signing", otherAlg: "ES256", otherAlgCode: .noMatchingKey),
    ]

    @Test("the vector verifies with its JWK and returns its header and payload", arguments: vectors)
    func verifies(vector: Vector) throws {
        let (header, payload) = try JWS.verify(vector.token, keys: [T.key(vector.jwk)])
        #expect(header["alg"]?.stringValue == vector.alg)
        #expect(payload == Array(vector.payload.utf8))
    }

    @Test("a flipped signature byte fails", arguments: vectors)
    func flippedSignature(vector: Vector) throws {
        let key = try T.key(vector.jwk)
        for index in [0, 10, 31, 63] {
            let token = T.flipping(byte: index, ofPart: 2, in: vector.token)
            #expect(T.refusal { _ = try JWS.verify(token, keys: [key]) }?.code == .invalidSignature, "byte \(index)")
        }
    }

    @Test("a flipped payload byte fails", arguments: vectors)
    func flippedPayload(vector: Vector) throws {
        let key = try T.key(vector.jwk)
        let token = T.flipping(byte: 5, ofPart: 1, in: vector.token)
        #expect(T.refusal { _ = try JWS.verify(token, keys: [key]) }?.code == .invalidSignature)
    }

    @Test("a header claiming another alg fails", arguments: vectors)
    func otherAlg(vector: Vector) throws {
        var header = try JSONParser.parse(Base64URL.decode(T.parts(vector.token)[0])!)
        guard case .object(var members) = header else {
            Issue.record("header is not an object")
            return
        }
        members[members.firstIndex { $0.0 == "alg" }!].1 = .string(vector.otherAlg)
        header = .object(members)
        let token = T.replacing(part: 0, of: vector.token, with: Array(JSONParser.encode(header).utf8))
        let key = try T.key(vector.jwk)
        #expect(T.refusal { _ = try JWS.verify(token, keys: [key]) }?.code == vector.otherAlgCode)
    }

    @Test("an unrelated key of the same type fails", arguments: vectors)
    func wrongKey(vector: Vector) throws {
        let (right, wrong) = (try T.key(vector.jwk), try T.key(vector.wrongJWK))
        #expect(T.refusal { _ = try JWS.verify(vector.token, keys: [wrong]) }?.code == .invalidSignature)
        // With the right key among others, it verifies.
        _ = try JWS.verify(vector.token, keys: [wrong, right])
    }

    @Test("PS256 pins a 32-byte salt and MGF1 with SHA-256 (RFC 7518 §3.5)")
    func pssParameters() throws {
        let key = try T.key(JOSEVectors.ps256JWK)
        let parts = T.parts(JOSEVectors.ps256Token)
        for signature in [JOSEVectors.ps256Salt64Signature, JOSEVectors.ps256MGF1SHA1Signature] {
            let token = parts[0] + "." + parts[1] + "." + signature
            #expect(T.refusal { _ = try JWS.verify(token, keys: [key]) }?.code == .invalidSignature)
        }
    }

    @Test("the key type must fit the alg: RSA never verifies ES256, EC never RS256")
    func keyTypeFits() throws {
        let rsa = try T.key(JOSEVectors.rs256JWK)
        let ec = try T.key(JOSEVectors.es256JWK)
        let ed = try T.key(JOSEVectors.edDSAJWK)
        #expect(T.refusal { _ = try JWS.verify(JOSEVectors.es256Token, keys: [rsa, ed]) }?.code == .noMatchingKey)
        #expect(T.refusal { _ = try JWS.verify(JOSEVectors.rs256Token, keys: [ec, ed]) }?.code == .noMatchingKey)
        #expect(T.refusal { _ = try JWS.verify(JOSEVectors.edDSAToken, keys: [rsa, ec]) }?.code == .noMatchingKey)
        // And the primitive refuses the question, not just the answer.
        #expect(
            T.refusal { _ = try rsa.verify([UInt8](repeating: 1, count: 64), of: [1], using: .es256) }?.code
                == .noMatchingKey)
        // The right one among the wrong ones is found.
        _ = try JWS.verify(JOSEVectors.es256Token, keys: [rsa, ed, ec])
    }

    @Test("alg none is refused with its own error, signed or not")
    func algNone() throws {
        let key = try T.key(JOSEVectors.rs256JWK)
        let payload = T.parts(JOSEVectors.rs256Token)[1]
        let none = Base64URL.encode(Array(#"{"alg":"none"}"#.utf8))
        for token in ["\(none).\(payload).", "\(none).\(payload).c2ln"] {
            let error = T.refusal { _ = try JWS.verify(token, keys: [key]) }
            #expect(error?.code == .unsecuredAlgorithm, "\(token)")
        }
    }

    @Test("HS256/384/512 are refused with their own error (RFC 7515 A.1 among them)")
    func hmac() throws {
        let a1 =
            "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        let key = try T.key(JOSEVectors.rs256JWK)
        #expect(T.refusal { _ = try JWS.verify(a1, keys: [key]) }?.code == .symmetricAlgorithm)
        for alg in ["HS384", "HS512"] {
            let token = T.replacing(part: 0, of: JOSEVectors.rs256Token, with: Array(#"{"alg":"\#(alg)"}"#.utf8))
            #expect(T.refusal { _ = try JWS.verify(token, keys: [key]) }?.code == .symmetricAlgorithm)
        }
        for alg in ["RS512", "ES384", "Ed25519", "rs256"] {
            let token = T.replacing(part: 0, of: JOSEVectors.rs256Token, with: Array(#"{"alg":"\#(alg)"}"#.utf8))
            #expect(T.refusal { _ = try JWS.verify(token, keys: [key]) }?.code == .unsupportedAlgorithm, "\(alg)")
        }
    }

    @Test("an ES256 signature must be 64 bytes: shorter, longer and DER are refused")
    func es256Length() throws {
        let key = try T.key(JOSEVectors.es256JWK)
        let signature = Base64URL.decode(T.parts(JOSEVectors.es256Token)[2])!
        // The same r and s, DER-encoded, as some libraries emit by mistake.
        let der: [UInt8] = [0x30, 0x44, 0x02, 0x20] + signature[..<32] + [0x02, 0x20] + signature[32...]
        for bad in [Array(signature.dropLast()), signature + [0], der] {
            let token = T.replacing(part: 2, of: JOSEVectors.es256Token, with: bad)
            let error = T.refusal { _ = try JWS.verify(token, keys: [key]) }
            #expect(error?.code == .malformedToken, "\(bad.count) bytes")
            #expect(error?.message.contains("64 bytes") == true)
        }
    }

    @Test("padding and non-canonical base64url are refused")
    func base64url() throws {
        let key = try T.key(JOSEVectors.rs256JWK)
        let token = JOSEVectors.rs256Token
        let parts = T.parts(token)
        // The signature is 342 characters for 256 bytes: its last character
        // carries 4 unused bits. "w" has them zero; "x" decodes to the same
        // bytes with one set, so a lenient decoder would accept it.
        #expect(parts[2].hasSuffix("w"))
        let nonCanonical = parts[0] + "." + parts[1] + "." + parts[2].dropLast() + "x"
        let cases = [
            token + "==",
            parts[0] + "=." + parts[1] + "." + parts[2],
            nonCanonical,
            parts[0] + "." + parts[1] + "." + String(parts[2].map { $0 == "_" ? "/" : $0 }),  // base64, not base64url
            parts[0] + " ." + parts[1] + "." + parts[2],
            token + "AAA",  // 345 characters: a lone 6 bits at the end
        ]
        for bad in cases {
            #expect(T.refusal { _ = try JWS.verify(bad, keys: [key]) }?.code == .malformedToken, "\(bad.suffix(8))")
        }
    }

    @Test("wrong shapes are refused: part counts, empty parts, oversize")
    func shapes() throws {
        let key = try T.key(JOSEVectors.rs256JWK)
        let parts = T.parts(JOSEVectors.rs256Token)
        for bad in [
            parts[0] + "." + parts[1],
            JOSEVectors.rs256Token + ".",
            JOSEVectors.rs256Token + "." + parts[2],
            "a.b.c.d.e",
            "." + parts[1] + "." + parts[2],
            parts[0] + ".." + parts[2],
            parts[0] + "." + parts[1] + ".",
            "",
        ] {
            #expect(T.refusal { _ = try JWS.verify(bad, keys: [key]) }?.code == .malformedToken, "\(bad.prefix(30))")
        }
        let error = T.refusal { _ = try JWS.verify(JOSEVectors.rs256Token, keys: [key], maxBytes: 100) }
        #expect(error?.code == .malformedToken)
        #expect(error?.message.contains("limit") == true)
    }

    @Test("a duplicate member in the header is refused (two readers, two algs)")
    func duplicateHeaderMember() throws {
        let key = try T.key(JOSEVectors.rs256JWK)
        let token = T.replacing(part: 0, of: JOSEVectors.rs256Token, with: Array(#"{"alg":"RS256","alg":"none"}"#.utf8))
        let error = T.refusal { _ = try JWS.verify(token, keys: [key]) }
        #expect(error?.code == .malformedHeader)
        #expect(error?.message.contains("duplicate") == true)
        for header in ["[1]", #"{"alg":256}"#, #"{"typ":"JWT"}"#, #"{"alg":"RS256","kid":7}"#, "{"] {
            let token = T.replacing(part: 0, of: JOSEVectors.rs256Token, with: Array(header.utf8))
            #expect(T.refusal { _ = try JWS.verify(token, keys: [key]) }?.code == .malformedHeader, "\(header)")
        }
    }

    @Test("crit is refused: we understand no extensions")
    func crit() throws {
        let key = try T.key(JOSEVectors.rs256JWK)
        let token = T.replacing(
            part: 0, of: JOSEVectors.rs256Token, with: Array(#"{"alg":"RS256","crit":["b64"],"b64":false}"#.utf8))
        #expect(T.refusal { _ = try JWS.verify(token, keys: [key]) }?.code == .criticalHeader)
    }

    @Test("keys are chosen by kid; an unknown kid is reported as such, with the kid")
    func keyID() throws {
        let ps256 = try T.key(JOSEVectors.ps256JWK)
        let other = try T.key(#"{"kty":"RSA","kid":"other","n":"\#(JOSEVectors.rs256N)","e":"AQAB"}"#)
        _ = try JWS.verify(JOSEVectors.ps256Token, keys: [other, ps256])

        let rotated = try T.key(#"{"kty":"RSA","kid":"rotated","n":"\#(JOSEVectors.ps256N)","e":"AQAB"}"#)
        let error = T.refusal { _ = try JWS.verify(JOSEVectors.ps256Token, keys: [other, rotated]) }
        #expect(error?.code == .unknownKeyID)
        #expect(error?.keyID == "ps256-test")
        #expect(error == .unknownKeyID("ps256-test"))

        // A key with the kid but the wrong type is no fit, not an unknown kid.
        let ecNamed = try T.key(
            #"{"kty":"EC","crv":"P-256","kid":"ps256-test","x":"\#(JOSEVectors.es256X)","y":"\#(JOSEVectors.es256Y)"}"#)
        let misfit = T.refusal { _ = try JWS.verify(JOSEVectors.ps256Token, keys: [ecNamed]) }
        #expect(misfit?.code == .noMatchingKey)
        #expect(misfit?.message.contains("P-256") == true)
        // A key declared for encryption never verifies.
        let encryption = try T.key(
            #"{"kty":"RSA","kid":"ps256-test","use":"enc","n":"\#(JOSEVectors.ps256N)","e":"AQAB"}"#)
        #expect(T.refusal { _ = try JWS.verify(JOSEVectors.ps256Token, keys: [encryption]) }?.code == .noMatchingKey)
    }

    @Test("one PublicKey verifies from many tasks at once (why it may be Sendable)")
    func concurrent() async throws {
        let keys = try JWSTests.vectors.map { try T.key($0.jwk) }
        let verified = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var count = 0
                    for round in 0..<25 {
                        let vector = JWSTests.vectors[(task + round) % JWSTests.vectors.count]
                        if (try? JWS.verify(vector.token, keys: keys)) != nil { count += 1 }
                    }
                    return count
                }
            }
            return await group.reduce(0, +)
        }
        #expect(verified == 200)
    }

    @Test("header members that name a key (jwk, jku) are not used to verify")
    func embeddedKeyIgnored() throws {
        // An attacker's token "verified" by the key it carries must still need ours.
        let header = #"{"alg":"ES256","jwk":\#(JOSEVectors.es256JWK),"jku":"https://attacker.example/jwks"}"#
        let token = T.replacing(part: 0, of: JOSEVectors.es256Token, with: Array(header.utf8))
        let ours = try T.key(JOSEVectors.otherP256JWK)
        #expect(T.refusal { _ = try JWS.verify(token, keys: [ours]) }?.code == .invalidSignature)
    }
}
