/// A libcrypto call failed; the message carries OpenSSL's own error text.
public struct CryptoError: Error, Sendable, CustomStringConvertible {
    public let operation: String
    public let reason: String
    public var description: String { "\(operation) failed: \(reason)" }
}
