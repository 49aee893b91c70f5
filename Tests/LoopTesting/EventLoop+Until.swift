public import SystemKit

extension EventLoop {
    /// Turns the loop until `done`, or for at most `limit` milliseconds; false
    /// when the limit came first. It waits on the loop (sockets, libcurl's and
    /// libmicrohttpd's descriptors, their timers), never sleeps: a test whose
    /// client and server share one loop gets its answer as soon as it exists.
    @discardableResult
    public func turn(until done: () -> Bool, limit: Int64 = 10_000) -> Bool {
        let deadline = Clock.monotonicMilliseconds() + limit
        while !done() {
            let left = deadline - Clock.monotonicMilliseconds()
            if left <= 0 { return false }
            turn(maxWaitMilliseconds: Int32(min(left, 1000)))
        }
        return true
    }
}
