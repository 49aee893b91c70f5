import JSONKit
import LinkRouterCore
import OpenSSLKit
import SystemKit

/// A provider's signing key for the tests' ID tokens: a fresh P-256 key
/// (OpenSSLKit's, the one DPoP keys are made with) under a `kid`, its JWK for
/// the JWKS, and ES256 compact JWSs of given claims.
struct TestSigner {
    let key: SigningKey
    let kid: String

    init(kid: String) throws {
        key = try SigningKey.generate()
        self.kid = kid
    }

    /// The public key as a JWKS entry: `kid`, `use: sig`, `alg: ES256`.
    var jwk: JSONValue {
        guard case .object(let members) = key.publicJWK else { return key.publicJWK }
        return .object(members + [("kid", .string(kid)), ("use", .string("sig")), ("alg", .string("ES256"))])
    }

    /// `{"keys": [...]}` of `signers`.
    static func jwks(_ signers: [TestSigner]) -> String {
        JSONParser.encode(.object([("keys", .array(signers.map(\.jwk)))]))
    }

    /// An ES256 JWS of `claims`, its header naming this key's `kid`.
    func sign(_ claims: [(String, JSONValue)]) throws -> String {
        let header: JSONValue = .object([("alg", .string("ES256")), ("kid", .string(kid)), ("typ", .string("JWT"))])
        let input =
            Base64URL.encode(Array(JSONParser.encode(header).utf8)) + "."
            + Base64URL.encode(Array(JSONParser.encode(.object(claims)).utf8))
        return input + "." + Base64URL.encode(try key.sign(Array(input.utf8)))
    }

    /// ID token claims that pass every check of a `ProviderWorld` grant: its issuer, client and nonce, live now.
    static func claims(issuer: String, subject: String = "alice") -> [(String, JSONValue)] {
        let now = Clock.unixSeconds()
        return [
            ("iss", .string(issuer)), ("sub", .string(subject)), ("aud", .string(ProviderWorld.clientID)),
            ("exp", .integer(now + 300)), ("iat", .integer(now)), ("nonce", .string(ProviderWorld.nonce)),
        ]
    }
}
