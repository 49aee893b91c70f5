public import LinkRouterCore

/// Draws a session's secrets: 256-bit state and nonce, a 256-bit PKCE
/// verifier (43 base64url characters, RFC 7636 §4.1) and its S256 challenge.
public enum SecretFactory {
    public static func sessionID() throws(CryptoError) -> SessionID {
        SessionID(randomBytes: try Random.bytes(16))
    }

    public static func token() throws(CryptoError) -> String {
        Base64URL.encode(try Random.bytes(32))
    }

    /// `BASE64URL(SHA256(ASCII(verifier)))`, RFC 7636 §4.2.
    public static func challenge(for verifier: String) throws(CryptoError) -> String {
        Base64URL.encode(try SHA256.hash(verifier))
    }

    public static func make(withVerifier: Bool) throws(CryptoError) -> SessionSecrets {
        let verifier = withVerifier ? try token() : nil
        return SessionSecrets(
            id: try sessionID(), state: try token(), nonce: try token(),
            codeVerifier: verifier, codeChallenge: try verifier.map { v throws(CryptoError) in try challenge(for: v) })
    }
}
