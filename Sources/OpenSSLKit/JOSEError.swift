/// Why a JWS or JWK was refused, in words a person can act on.
///
/// Like `RouterError`: a stable `Code` to branch on and a message for the
/// log. `keyID` names the `kid` for `.unknownKeyID`, the one code a caller
/// should act on by refetching the provider's JWKS (once) and retrying.
public struct JOSEError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The kind of refusal; the raw values are stable names for logs and the bus.
    public enum Code: String, Sendable, CaseIterable {
        /// Not a compact JWS: wrong number of parts, empty part, bad
        /// base64url, too long, or a signature of the wrong size.
        case malformedToken = "MalformedToken"
        /// The protected header is not a JSON object with a string `alg`,
        /// or has a duplicate member or a mistyped `kid`.
        case malformedHeader = "MalformedHeader"
        /// `alg: none`: an unsigned token is never accepted.
        case unsecuredAlgorithm = "UnsecuredAlgorithm"
        /// `HS256/384/512`: a shared-secret MAC; with public keys that is
        /// the classic key-confusion attack, so it is refused outright.
        case symmetricAlgorithm = "SymmetricAlgorithm"
        /// Any other `alg` we do not implement.
        case unsupportedAlgorithm = "UnsupportedAlgorithm"
        /// `crit` names extensions; we understand none, so RFC 7515 §4.1.11
        /// requires refusing the token.
        case criticalHeader = "CriticalHeader"
        /// The header's `kid` is not among the keys: refetch the JWKS once.
        case unknownKeyID = "UnknownKeyID"
        /// No key of the type (and declared `alg`/`use`) the `alg` needs.
        case noMatchingKey = "NoMatchingKey"
        /// Well-formed, but the signature does not verify with any fitting key.
        case invalidSignature = "InvalidSignature"
        /// A JWK we support in kind but not in content: missing or
        /// mistyped members, weak RSA, an EC point off the curve, private
        /// members present.
        case invalidKey = "InvalidKey"
        /// A JWK of a type or curve we do not verify with (`oct`, P-384,
        /// X25519…): a JWKS reader may skip it.
        case unsupportedKey = "UnsupportedKey"
        /// libcrypto failed for a reason of its own (allocation, provider).
        case cryptoFailure = "CryptoFailure"
    }

    public var code: Code
    public var message: String
    /// The header's `kid`, for `.unknownKeyID`; nil otherwise.
    public var keyID: String?

    public init(_ code: Code, _ message: String, keyID: String? = nil) {
        self.code = code
        self.message = message
        self.keyID = keyID
    }

    /// The token names a key the caller does not have.
    public static func unknownKeyID(_ kid: String) -> JOSEError {
        JOSEError(
            .unknownKeyID, "no key has kid \"\(kid)\"; the provider may have rotated its keys: refetch its JWKS once",
            keyID: kid)
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
