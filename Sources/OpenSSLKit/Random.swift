internal import COpenSSL

/// Randomness from OpenSSL's CSPRNG. There is no fallback: if `RAND_bytes`
/// fails, the caller fails (threat model S8).
public enum Random {
    public static func bytes(_ count: Int) throws(CryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let ok = out.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        guard ok == 1 else { throw CryptoError(operation: "RAND_bytes", reason: OpenSSLError.last()) }
        return out
    }
}

/// The newest message on OpenSSL's per-thread error queue.
enum OpenSSLError {
    static func last() -> String {
        let code = ERR_get_error()
        guard code != 0 else { return "no error reported" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The oldest message, then an empty queue: a refused key or signature
    /// can leave several entries, which must not surface in a later, unrelated call.
    static func drain() -> String {
        let message = last()
        ERR_clear_error()
        return message
    }
}
