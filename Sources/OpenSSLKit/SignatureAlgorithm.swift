/// The JWS `alg` values we verify (RFC 7518 §3.1, RFC 8037 §3.1), each
/// bound to the one key type it may use: an RSA key never checks an ES256
/// signature, whatever the header says.
public enum SignatureAlgorithm: String, Sendable, CaseIterable {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    case rs256 = "RS256"
    /// RSASSA-PSS with SHA-256, MGF1-SHA-256 and a 32-byte salt.
    case ps256 = "PS256"
    /// ECDSA on P-256 with SHA-256; the signature is raw `r || s`, 64 bytes.
    case es256 = "ES256"
    /// Ed25519 (the only EdDSA curve we accept).
    case edDSA = "EdDSA"

    /// The key type this algorithm verifies with.
    public var keyType: PublicKey.KeyType {
        switch self {
        case .rs256, .ps256: return .rsa
        case .es256: return .p256
        case .edDSA: return .ed25519
        }
    }
}
