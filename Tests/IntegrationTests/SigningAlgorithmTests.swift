import Foundation
import SystemKit
import Testing

/// ID tokens signed as real providers sign them: Glewlwyd with an RSA key
/// (PKCS #1 v1.5 and PSS), a P-256 and an Ed25519 key. Each login verifies the ID token against the
/// provider's JWKS before anyone gets a token, and the token handed out
/// carries the provider's algorithm.
@Suite("ID-token signatures from a real provider")
struct SigningAlgorithmTests {
    @Test(
        "Glewlwyd signing RS256, PS256, ES256 and EdDSA: the login verifies its ID token and the account hands it out",
        arguments: [("rsa", "RS256"), ("rsa-pss", "PS256"), ("ecdsa", "ES256"), ("eddsa", "EdDSA")])
    func signed(_ signing: String, _ alg: String) throws {
        let w = try AccountTests.World(signing: signing)
        #expect(try w.add("work", ["--token", "id"]).status == 0)
        let login = try w.login("work")
        #expect(login.status == 0, "\(login.errorText)")
        let token = try w.desktop.linkctl("token", "work")
        #expect(token.status == 0, "\(token.errorText)")
        let header = JWTParts.header(token.text.trimmingCharacters(in: .newlines))
        #expect(header["alg"] as? String == alg, "\(header)")
    }
}
