import JSONKit
public import LinkRouterCore
public import OpenSSLKit

/// The core's `DPoPKey` made and used through OpenSSL: the only place a
/// DPoP key is generated, read back from its JWK, or signs.
extension DPoPKey {
    /// A fresh P-256 key (an account login's, `SecretFactory`'s caller draws one per login).
    public static func generate() throws(JOSEError) -> DPoPKey {
        let key = try SigningKey.generate()
        let jwk = JSONParser.encode(try key.privateJWK())
        let thumbprint: String
        do { thumbprint = try key.thumbprint() } catch { throw JOSEError(.cryptoFailure, error.description) }
        guard let made = DPoPKey(privateJWK: jwk, thumbprint: thumbprint) else {
            throw JOSEError(.invalidKey, "OpenSSL made a key whose JWK is not one line of printable ASCII")
        }
        return made
    }

    /// The key to sign with, checked to be the one the thumbprint names.
    public func signingKey() throws(JOSEError) -> SigningKey {
        let jwk: JSONValue
        do { jwk = try JSONParser.parse(Array(privateJWK.utf8)) } catch {
            throw JOSEError(.invalidKey, "the kept DPoP key is not JSON: \(error)")
        }
        let key = try SigningKey(privateJWK: jwk)
        guard (try? key.thumbprint()) == thumbprint else {
            throw JOSEError(.invalidKey, "the kept DPoP key is not the one its thumbprint names")
        }
        return key
    }
}
