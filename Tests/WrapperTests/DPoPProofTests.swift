import Foundation
import Glibc
import JOSE
import JSONKit
import LinkRouterCore
import OpenSSLKit
import SystemKit
import Testing

/// The daemon's own signing key and the DPoP proofs it makes (RFC 9449): made
/// by OpenSSL, kept as a private JWK and read back, checked by this code's
/// verifier, against the RFC's own values, and by an implementation from
/// another code base (jwcrypto, in the virtual environment `scripts/setup
/// --test` makes).
@Suite("DPoP: the daemon's key and its proofs")
struct DPoPProofTests {
    @Test(
        "a proof's iat is never a second ahead of a server's time(): read across two second boundaries, the clock it comes from never says a later second than glibc's time() read just after (CLOCK_REALTIME does, for a tick after each second begins; Glewlwyd refused such proofs)"
    )
    func issuedAtNeverAhead() {
        var ahead = 0
        var boundaries = 0
        var last = Int64(time(nil))
        while boundaries < 2 {
            let issuedAt = Clock.coarseUnixSeconds()
            let serverNow = Int64(time(nil))
            if issuedAt > serverNow { ahead += 1 }
            if serverNow != last {
                boundaries += 1
                last = serverNow
            }
        }
        #expect(ahead == 0, "iat was later than time() \(ahead) times")
    }

    static let jwcryptoPython =
        FileSystem.directoryName(FileSystem.directoryName(FileSystem.directoryName(#filePath)))
        + "/.build/test-tools/dot-venv/bin/python"

    @Test(
        "the core's DPoPKey made by OpenSSL: one line of JWK, read back to the same key; a JWK whose thumbprint is another key's is refused"
    )
    func coreKey() throws {
        let made = try DPoPKey.generate()
        #expect(
            !made.privateJWK.contains("\n") && !made.privateJWK.contains(" "),
            "one line of a stored flow, one field of its own")
        let back = try made.signingKey()
        #expect(try back.thumbprint() == made.thumbprint)
        let other = try DPoPKey.generate()
        let mixed = try #require(DPoPKey(privateJWK: made.privateJWK, thumbprint: other.thumbprint))
        #expect(throws: JOSEError.self) { try mixed.signingKey() }
        #expect(!String(describing: made).contains(made.privateJWK), "a key's description names its thumbprint only")
    }

    @Test(
        "a generated key signs ES256 (64 bytes r || s) that its public JWK verifies; a changed message or signature does not"
    )
    func signs() throws {
        let key = try SigningKey.generate()
        let message = Array("proof".utf8)
        let signature = try key.sign(message)
        #expect(signature.count == 64)
        let verifier = try PublicKey(jwk: key.publicJWK)
        #expect(try verifier.verify(signature, of: message, using: .es256))
        #expect(try !verifier.verify(signature, of: Array("proof!".utf8), using: .es256))
        var flipped = signature
        flipped[10] ^= 1
        #expect(try !verifier.verify(flipped, of: message, using: .es256))
        #expect(try SigningKey.generate().x != key.x, "each key is new")
    }

    @Test(
        "kept as a private JWK and read back, the key is the same key; a JWK that is not a whole P-256 key pair is refused"
    )
    func kept() throws {
        let key = try SigningKey.generate()
        let kept = try key.privateJWK()
        let back = try SigningKey(privateJWK: kept)
        let (thumbprint, keptThumbprint) = (try key.thumbprint(), try back.thumbprint())
        #expect(back.x == key.x && back.y == key.y && thumbprint == keptThumbprint)
        #expect(try PublicKey(jwk: key.publicJWK).verify(try back.sign([1, 2, 3]), of: [1, 2, 3], using: .es256))
        #expect(key.publicJWK["d"] == nil, "the public JWK has no private part")

        let other = try SigningKey.generate().privateJWK()
        func with(_ name: String, _ value: JSONValue?) -> JSONValue {
            guard case .object(var members) = kept else { return kept }
            members.removeAll { $0.0 == name }
            if let value { members.append((name, value)) }
            return .object(members)
        }
        for (bad, why) in [
            (with("d", other["d"]), "another key's d"), (with("y", other["y"]), "a point off the curve"),
            (with("crv", .string("P-384")), "another curve"),
            (with("d", .string("AAAA")), "a short d"), (with("d", nil), "no d"),
            (with("kty", .string("RSA")), "another type"),
        ] {
            #expect(JOSETesting.refusal { _ = try SigningKey(privateJWK: bad) }?.code == .invalidKey, "\(why)")
        }
    }

    @Test("the thumbprint and ath are RFC 9449's own values for its example key and token (RFC 7638 §3)")
    func vectors() throws {
        #expect(
            try SigningKey.thumbprint(
                x: "l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs", y: "9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA")
                == "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I")
        #expect(throws: CryptoError.self) { _ = try SigningKey.thumbprint(x: "a\"b", y: "c") }
        let proof = try DPoPProof.make(
            key: try SigningKey.generate(), method: "GET", url: "https://resource.example.org/protectedresource",
            issuedAt: 1_562_262_618,
            accessToken: "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU")
        let payload = try JSONParser.parse(Base64URL.decode(JOSETesting.parts(proof)[1])!)
        #expect(payload["ath"]?.stringValue == "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo")
    }

    @Test(
        "a proof: typ dpop+jwt, ES256, the public key in the header; htm, htu without query or fragment, iat, a new jti each time, the nonce asked for"
    )
    func proof() throws {
        let key = try SigningKey.generate()
        let proof = try DPoPProof.make(
            key: key, method: "POST", url: "https://as.example/token?x=1#f", issuedAt: 1_800_000_000,
            nonce: "eyJ7S_zG.eyJH0-Z.HX4w-7v")
        let (header, payloadBytes) = try JWS.verify(proof, keys: [try PublicKey(jwk: key.publicJWK)])
        #expect(
            header["typ"]?.stringValue == "dpop+jwt" && header["alg"]?.stringValue == "ES256"
                && header["jwk"] == key.publicJWK)
        let payload = try JSONParser.parse(payloadBytes)
        #expect(payload["htm"]?.stringValue == "POST" && payload["htu"]?.stringValue == "https://as.example/token")
        #expect(
            payload["iat"] == .integer(1_800_000_000) && payload["nonce"]?.stringValue == "eyJ7S_zG.eyJH0-Z.HX4w-7v"
                && payload["ath"] == nil)
        let again = try JSONParser.parse(
            try JWS.verify(
                try DPoPProof.make(key: key, method: "POST", url: "https://as.example/token", issuedAt: 1),
                keys: [try PublicKey(jwk: key.publicJWK)]
            ).payload)
        let jti = payload["jti"]?.stringValue ?? ""
        #expect(Base64URL.decode(jti)?.count == 16 && again["jti"]?.stringValue != jti && again["nonce"] == nil)
    }

    @Test(
        "another implementation agrees: jwcrypto verifies the proof with the key in its header and computes the same thumbprint",
        .enabled(
            if: FileSystem.isExecutable(DPoPProofTests.jwcryptoPython),
            "jwcrypto comes with django-oauth-toolkit's virtual environment (scripts/setup --test)"))
    func jwcrypto() throws {
        let key = try SigningKey.generate()
        let proof = try DPoPProof.make(
            key: key, method: "POST", url: "https://as.example/token", issuedAt: 1_800_000_000)
        let script = """
            import sys, json
            from jwcrypto import jwk, jws
            token = sys.argv[1]
            t = jws.JWS()
            t.deserialize(token)
            key = jwk.JWK(**t.jose_header["jwk"])
            t.verify(key, alg="ES256")
            print(key.thumbprint())
            print(json.loads(t.payload)["htu"])
            """
        let r = try Subprocess.run([Self.jwcryptoPython, "-c", script, proof])
        #expect(r.status == 0, "\(r.errorText)")
        let thumbprint = try key.thumbprint()
        #expect(r.text == thumbprint + "\nhttps://as.example/token\n", "\(r.text)")
        let tampered = JOSETesting.flipping(byte: 3, ofPart: 2, in: proof)
        #expect(
            try Subprocess.run([Self.jwcryptoPython, "-c", script, tampered]).status != 0,
            "a flipped signature byte fails there too")
    }
}
