import LinkRouterCore
import OpenSSLKit

/// A provider's JWKS (RFC 7517 §5), reduced to the keys that can verify an
/// ID token. Keys of kinds we never verify with (encryption keys, unknown
/// types) are skipped, as RFC 7517 §5 asks; a set with none left is an error.
enum JWKSet {
    static func keys(_ document: JSONValue, from url: String) throws(RouterError) -> [PublicKey] {
        guard let list = document["keys"]?.arrayValue else {
            throw RouterError(
                .idTokenRejected,
                "the key set at \(url) has no \"keys\" array, so no ID token can be verified; no token was handed out")
        }
        var keys: [PublicKey] = []
        var skipped: [String] = []
        for jwk in list.prefix(64) {
            if jwk["use"]?.stringValue == "enc" { continue }
            do { keys.append(try PublicKey(jwk: jwk)) } catch { skipped.append(error.message) }
        }
        guard !keys.isEmpty else {
            let why = skipped.isEmpty ? "it lists no signing keys" : skipped.prefix(3).joined(separator: "; ")
            throw RouterError(
                .idTokenRejected,
                "the key set at \(url) holds no key that can verify a signature (\(why)); no token was handed out")
        }
        return keys
    }
}
