internal import COpenSSL
import SystemKit

/// Randomness for the daemon's secrets. There is no fallback: if the kernel's
/// generator fails, the caller fails (threat model S8).
public enum Random {
    /// `count` bytes from the kernel's CSPRNG (`getrandom(2)`, which OpenSSL's own generator is seeded from); a
    /// failure is an error and nothing is drawn instead (threat model S8). Not `RAND_bytes`: its first call brings up
    /// OpenSSL 3's DRBG and providers, 2.35 MiB more resident for the sessions' secrets (`SHA256` says how measured).
    public static func bytes(_ count: Int) throws(CryptoError) -> [UInt8] {
        do { return try SecureRandom.draw(count) } catch {
            throw CryptoError(operation: "getrandom", reason: error.description)
        }
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
