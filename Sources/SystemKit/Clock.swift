import Glibc

/// The two clocks the daemon needs (threat model P5): timers run on the boot
/// clock, which counts suspend and never jumps; what is stored is wall time.
public enum Clock {
    /// Milliseconds on `CLOCK_BOOTTIME`, for timers and timeouts.
    public static func monotonicMilliseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_BOOTTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// Nanoseconds on `CLOCK_MONOTONIC`, for measuring.
    public static func monotonicNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Unix seconds on the wall clock, for what is persisted and shown (`ExpiresAt`).
    public static func unixSeconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec)
    }

    /// Unix seconds as a C server on this machine reads them with `time(2)`:
    /// glibc's `time` is the kernel's coarse clock, updated once a tick, so
    /// for a few milliseconds after each second begins it still says the
    /// second before while `CLOCK_REALTIME` says the new one. A claim a server
    /// checks against its `time()` (a DPoP proof's `iat`, which Glewlwyd
    /// refuses when it is later than its now) is taken from this clock, so it
    /// is never a second in that server's future.
    public static func coarseUnixSeconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME_COARSE, &ts)
        return Int64(ts.tv_sec)
    }

    /// Sleeps for `milliseconds` (tests and back-off only; the daemon never sleeps).
    public static func sleep(milliseconds: Int) {
        var ts = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
        var left = timespec()
        while nanosleep(&ts, &left) == -1 && errno == EINTR { ts = left }
    }
}
