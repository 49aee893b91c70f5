import JSONKit
import LinkRouterCore
public import OpenSSLKit

/// A DPoP proof (RFC 9449 §4.2): a JWS the client signs for one HTTP request
/// with a key it holds, so a token bound to that key is worth nothing to
/// anyone who copies it without the key. Made for each request to a token
/// or PAR endpoint (`DPoPRequests`), and for an account's owner's request to a resource (`SignProof`).
public enum DPoPProof {
    /// One request's proof: the header names the public key (`jwk`) and `typ`
    /// `dpop+jwt`; the payload carries a unique `jti`, the method (`htm`), the
    /// URL without query or fragment (`htu`, §4.2), `iat`, the server's
    /// `nonce` when it asked for one (§8), and for a resource the access
    /// token's hash (`ath`: base64url of its SHA-256, §4.2).
    public static func make(
        key: SigningKey, method: String, url: String, issuedAt: Int64, nonce: String? = nil, accessToken: String? = nil
    ) throws(JOSEError) -> String {
        let jti: [UInt8]
        do { jti = try Random.bytes(16) } catch { throw JOSEError(.cryptoFailure, error.description) }
        var claims: [(String, JSONValue)] = [
            ("jti", .string(Base64URL.encode(jti))), ("htm", .string(method)),
            ("htu", .string(DPoPProofTarget.uri(url))), ("iat", .integer(issuedAt)),
        ]
        if let nonce { claims.append(("nonce", .string(nonce))) }
        if let accessToken {
            do { claims.append(("ath", .string(Base64URL.encode(try SHA256.hash(accessToken))))) } catch {
                throw JOSEError(.cryptoFailure, error.description)
            }
        }
        let header: JSONValue = .object([
            ("typ", .string("dpop+jwt")), ("alg", .string("ES256")), ("jwk", key.publicJWK),
        ])
        let signingInput =
            Base64URL.encode(Array(JSONParser.encode(header).utf8)) + "."
            + Base64URL.encode(Array(JSONParser.encode(.object(claims)).utf8))
        return signingInput + "." + Base64URL.encode(try key.sign(Array(signingInput.utf8)))
    }
}
