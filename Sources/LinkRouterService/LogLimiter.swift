import SystemKit

/// Caps how many lines a flood can write (threat model X1, X3): past
/// `perSecond` lines in a second, lines are counted and one summary says how
/// many were dropped.
final class LogLimiter {
    private let perSecond: Int
    private var windowStart: Int64 = 0
    private var written = 0
    private var suppressed = 0
    /// Every line suppressed since start (a counter: what the flood cost the log).
    private(set) var suppressedTotal: UInt64 = 0

    init(perSecond: Int = 20) { self.perSecond = perSecond }

    /// The message is only formatted if it is written.
    func write(_ priority: Log.Priority, _ message: @autoclosure () -> String) {
        let now = Clock.monotonicMilliseconds()
        if now - windowStart >= 1000 {
            if suppressed > 0 {
                Log.write(
                    .warning,
                    "Suppressed \(suppressed) similar log messages in the last second (a flood of links or calls?)")
            }
            windowStart = now
            written = 0
            suppressed = 0
        }
        guard written < perSecond else {
            suppressed += 1
            suppressedTotal += 1
            return
        }
        written += 1
        Log.write(priority, message())
    }
}
