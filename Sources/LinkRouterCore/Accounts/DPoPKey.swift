/// An account's DPoP key (RFC 9449), as the core carries it: the private
/// JWK the daemon made with OpenSSL, and its RFC 7638 thumbprint (`jkt`).
/// The core never signs; it only passes the key from the login that made it
/// to the token endpoint, the keyring and the proofs the daemon signs.
public struct DPoPKey: Sendable, Equatable {
    /// Compact JSON (`crv`, `kty`, `x`, `y`, `d`): no line break, so it is one line of a stored flow.
    public let privateJWK: String
    /// The public key's thumbprint: `dpop_jkt` at the authorize endpoint, `cnf.jkt` in a bound token.
    public let thumbprint: String

    /// Nil when either part is not what the daemon writes (a line break, a thumbprint that is not base64url).
    public init?(privateJWK: String, thumbprint: String) {
        guard !privateJWK.isEmpty, privateJWK.utf8.count <= 512,
            privateJWK.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }),
            thumbprint.utf8.count == 43, Base64URL.isEncoded(thumbprint)
        else { return nil }
        self.privateJWK = privateJWK
        self.thumbprint = thumbprint
    }
}

/// Never the private key: a key travels inside operations and token sets, which reach log lines.
extension DPoPKey: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { "DPoP key \(thumbprint)" }
    public var debugDescription: String { description }
}
