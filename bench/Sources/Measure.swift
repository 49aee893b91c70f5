import Glibc
import SystemKit

/// Timing helpers: medians of repeated runs, nanoseconds on CLOCK_MONOTONIC.
enum Measure {
    static func now() -> UInt64 { Clock.monotonicNanoseconds() }

    /// Wall-clock seconds, to line up with marks another process took (Python's `time.time()`).
    static func wallSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    static func median(_ xs: [Double]) -> Double {
        let s = xs.sorted()
        guard !s.isEmpty else { return .nan }
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    /// Milliseconds one run of `body` takes.
    static func ms(_ body: () throws -> Void) rethrows -> Double {
        let t0 = now()
        try body()
        return Double(now() - t0) / 1e6
    }

    /// Runs two measurements interleaved `n` times (so drift hits both alike); medians in ms.
    static func interleaved(_ n: Int, _ a: () throws -> Void, _ b: () throws -> Void) rethrows -> (Double, Double) {
        var xa: [Double] = []
        var xb: [Double] = []
        for _ in 0..<n {
            xa.append(try ms(a))
            xb.append(try ms(b))
        }
        return (median(xa), median(xb))
    }

    static func format(_ x: Double, _ digits: Int = 2) -> String {
        guard x.isFinite else { return "n/a" }
        var p = 1.0
        for _ in 0..<digits { p *= 10 }
        let r = (x * p).rounded() / p
        var s = String(r)
        if let dot = s.firstIndex(of: ".") {
            let decimals = s[s.index(after: dot)...].count
            if decimals < digits { s += String(repeating: "0", count: digits - decimals) }
        } else if digits > 0 {
            s += "." + String(repeating: "0", count: digits)
        }
        return s
    }
}
