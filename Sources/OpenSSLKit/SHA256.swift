internal import COpenSSL

/// SHA-256 (the PKCE challenge, a claim token's digest, a DPoP proof's
/// `ath`, a key's thumbprint), with OpenSSL's own implementation through its
/// low-level calls. Through `EVP_Digest*` the first digest fetches the
/// algorithm from OpenSSL 3's default provider, which brings up the
/// provider machinery: 2.2 MiB more resident in a daemon whose only use of
/// libcrypto so far is the sessions' challenges (measured with a C program
/// reading VmRSS: 0.13 MiB for the low-level calls). They are deprecated in
/// OpenSSL 3.0 and stay in libcrypto.so.3's ABI.
public enum SHA256 {
    public static func hash(_ bytes: [UInt8]) throws(CryptoError) -> [UInt8] {
        var context = SHA256_CTX()
        guard SHA256_Init(&context) == 1 else {
            throw CryptoError(operation: "SHA256_Init", reason: OpenSSLError.last())
        }
        let updated = bytes.withUnsafeBytes { SHA256_Update(&context, $0.baseAddress, $0.count) }
        guard updated == 1 else { throw CryptoError(operation: "SHA256_Update", reason: OpenSSLError.last()) }
        var out = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        guard (out.withUnsafeMutableBufferPointer { SHA256_Final($0.baseAddress, &context) }) == 1 else {
            throw CryptoError(operation: "SHA256_Final", reason: OpenSSLError.last())
        }
        return out
    }

    public static func hash(_ text: String) throws(CryptoError) -> [UInt8] { try hash(Array(text.utf8)) }
}
