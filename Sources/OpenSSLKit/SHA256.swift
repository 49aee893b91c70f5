internal import COpenSSL

/// SHA-256 through libcrypto's EVP interface.
public enum SHA256 {
    public static func hash(_ bytes: [UInt8]) throws(CryptoError) -> [UInt8] {
        var context = try DigestContext()
        try context.update(bytes)
        return try context.finish()
    }

    public static func hash(_ text: String) throws(CryptoError) -> [UInt8] { try hash(Array(text.utf8)) }
}

/// One `EVP_MD_CTX`, uniquely owned and freed exactly once.
struct DigestContext: ~Copyable {
    private let raw: OpaquePointer

    init() throws(CryptoError) {
        guard let ctx = EVP_MD_CTX_new() else {
            throw CryptoError(operation: "EVP_MD_CTX_new", reason: OpenSSLError.last())
        }
        guard EVP_DigestInit_ex(ctx, EVP_sha256(), nil) == 1 else {
            EVP_MD_CTX_free(ctx)
            throw CryptoError(operation: "EVP_DigestInit_ex", reason: OpenSSLError.last())
        }
        raw = ctx
    }

    mutating func update(_ bytes: [UInt8]) throws(CryptoError) {
        let ok = bytes.withUnsafeBytes { EVP_DigestUpdate(raw, $0.baseAddress, $0.count) }
        guard ok == 1 else { throw CryptoError(operation: "EVP_DigestUpdate", reason: OpenSSLError.last()) }
    }

    consuming func finish() throws(CryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = out.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(raw, $0.baseAddress, &length) }
        guard ok == 1 else { throw CryptoError(operation: "EVP_DigestFinal_ex", reason: OpenSSLError.last()) }
        return Array(out.prefix(Int(length)))
    }

    deinit { EVP_MD_CTX_free(raw) }
}
