internal import CLinux
import Glibc

/// The kernel's CSPRNG (`getrandom(2)`), for linkctl, which does not link
/// OpenSSL: claim tokens and unique file names.
public enum SecureRandom {
    public static func bytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = out.withUnsafeMutableBytes { getrandom($0.baseAddress! + filled, count - filled, 0) }
            if n < 0 {
                if errno == EINTR { continue }
                // getrandom cannot fail on Linux ≥ 3.17 once the pool is ready; never hand out zeros.
                fatalError("getrandom failed: \(SystemError("getrandom"))")
            }
            filled += n
        }
        return out
    }
}
