internal import COpenSSL

/// A verification key: one libcrypto `EVP_PKEY`, freed when the last
/// reference goes, with the JWK metadata that decides which tokens it may
/// check. Made by `PublicKey(jwk:)`.
///
/// `@unchecked Sendable`: the `EVP_PKEY` is never modified after import,
/// and OpenSSL 3 allows one key to be used by many threads at once for
/// verification (each `verify` makes its own `EVP_MD_CTX`).
public final class PublicKey: @unchecked Sendable, CustomStringConvertible {
    /// The three key types we verify with, named as in error messages.
    public enum KeyType: String, Sendable {
        case rsa = "RSA"
        case p256 = "P-256"
        case ed25519 = "Ed25519"
    }

    /// Which of the three; `SignatureAlgorithm.keyType` must equal it.
    public let type: KeyType
    /// The modulus size for RSA; 256 for P-256 and Ed25519.
    public let bits: Int
    /// The JWK's `kid`, matched against a token header's `kid`.
    public let keyID: String?
    /// The JWK's `alg`: when present, the only algorithm the key may verify.
    public let algorithm: String?
    /// The JWK's `use`: when present, it must be `sig` to verify anything.
    public let use: String?

    /// The `EVP_PKEY*`, owned.
    let raw: OpaquePointer

    init(owning raw: OpaquePointer, type: KeyType, keyID: String?, algorithm: String?, use: String?) {
        self.raw = raw
        self.type = type
        self.bits = Int(EVP_PKEY_get_bits(raw))
        self.keyID = keyID
        self.algorithm = algorithm
        self.use = use
    }

    deinit { EVP_PKEY_free(raw) }

    /// Whether this key may verify `algorithm`: the right type, a `use` of
    /// `sig` or none, and a JWK `alg` equal to it or none (RFC 7517 §4.2, §4.4).
    public func fits(_ algorithm: SignatureAlgorithm) -> Bool {
        algorithm.keyType == type && (use == nil || use == "sig")
            && (self.algorithm == nil || self.algorithm == algorithm.rawValue)
    }

    /// Why this key may not verify `algorithm`, for an error message; nil when it fits.
    public func misfit(for algorithm: SignatureAlgorithm) -> String? {
        if algorithm.keyType != type {
            return
                "it is \(type.article) \(type.rawValue) key and \(algorithm.rawValue) needs \(algorithm.keyType.article) \(algorithm.keyType.rawValue) key"
        }
        if let use, use != "sig" { return "its use is \"\(use)\", not \"sig\"" }
        if let declared = self.algorithm, declared != algorithm.rawValue {
            return "its JWK declares alg \(declared), not \(algorithm.rawValue)"
        }
        return nil
    }

    public var description: String {
        "\(type.rawValue) \(bits)-bit key" + (keyID.map { " \"\($0)\"" } ?? "")
    }
}

extension PublicKey.KeyType {
    fileprivate var article: String { self == .rsa ? "an" : "a" }
}
