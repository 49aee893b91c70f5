import SystemKit

/// At most `perSecond` events in any one-second window (threat model X1, R6).
struct RateLimiter {
    let perSecond: Int
    private var windowStart: Int64 = 0
    private var count = 0
    private(set) var dropped = 0

    init(perSecond: Int) { self.perSecond = perSecond }

    mutating func allow() -> Bool {
        let t = Clock.monotonicMilliseconds()
        if t - windowStart >= 1000 {
            windowStart = t
            count = 0
        }
        count += 1
        if count > perSecond {
            dropped += 1
            return false
        }
        return true
    }
}
