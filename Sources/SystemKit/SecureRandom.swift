internal import CLinux
import Glibc

/// The kernel's CSPRNG (`getrandom(2)`): the daemon's secrets (through
/// `OpenSSLKit.Random`), linkctl's claim tokens and unique file names.
public enum SecureRandom {
    public static func bytes(_ count: Int) -> [UInt8] {
        do { return try draw(count) } catch {
            // getrandom cannot fail on Linux ≥ 3.17 once the pool is ready; never hand out zeros.
            fatalError("getrandom failed: \(error)")
        }
    }

    /// `count` bytes, or the error (the daemon's secrets: a session is refused, never given weaker ones).
    public static func draw(_ count: Int) throws(SystemError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = out.withUnsafeMutableBytes { getrandom($0.baseAddress! + filled, count - filled, 0) }
            if n < 0 {
                if errno == EINTR { continue }
                throw SystemError("getrandom")
            }
            filled += n
        }
        return out
    }
}
