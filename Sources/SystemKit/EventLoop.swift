internal import CLinux
import Glibc

/// A single-threaded `poll(2)` loop: file descriptors, timers on the boot
/// clock, and hooks run after each turn. One thread owns every connection and
/// session, so nothing needs a lock (CONVENTIONS: one owner per connection).
///
/// The loop sleeps on a `timerfd` of `CLOCK_BOOTTIME`, armed at the earliest
/// deadline, not on `poll`'s own timeout: that one counts on the monotonic clock,
/// which stops while the machine is suspended, so a laptop that wakes after a
/// night would run a background refresh due at 2 a.m. only hours later. The boot
/// clock's timer expires at the moment of resume (issue 34).
public final class EventLoop {
    /// What a descriptor is waited for, or what it is ready for.
    public struct Events: OptionSet, Sendable {
        public let rawValue: Int16
        public init(rawValue: Int16) { self.rawValue = rawValue }
        public static let readable = Events(rawValue: Int16(POLLIN))
        public static let writable = Events(rawValue: Int16(POLLOUT))
        public static let error = Events(rawValue: Int16(POLLERR))
        public static let hangup = Events(rawValue: Int16(POLLHUP))
    }

    public struct SourceID: Hashable, Sendable { let value: Int }
    public struct TimerID: Hashable, Sendable { let value: Int }

    private struct Source {
        let fd: Int32
        var events: Events
        let handler: (Events) -> Void
    }

    private var sources: [Int: Source] = [:]
    /// Timers by deadline, then by the order they were scheduled.
    private struct Timer {
        let deadline: Int64
        let sequence: UInt64
        let id: Int
    }
    private var timers = MinHeap<Timer> { a, b in
        a.deadline != b.deadline ? a.deadline < b.deadline : a.sequence < b.sequence
    }
    private var timerHandlers: [Int: () -> Void] = [:]
    private var hooks: [() -> Void] = []
    private var nextID = 1
    private var sequence: UInt64 = 0
    private var stopping = false
    /// The boot clock's timer the loop sleeps on; -1 where the kernel gave none
    /// (then `poll`'s timeout stands in, which is late after a suspend).
    private let bootClockTimer: Int32
    /// The deadline `bootClockTimer` is armed at, `Int64.max` when disarmed.
    private var armedDeadline = Int64.max

    public init() {
        bootClockTimer = timerfd_create(CLOCK_BOOTTIME, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
    }

    deinit { if bootClockTimer >= 0 { close(bootClockTimer) } }

    @discardableResult
    public func watch(_ fd: Int32, for events: Events, _ handler: @escaping (Events) -> Void) -> SourceID {
        let id = nextID
        nextID += 1
        sources[id] = Source(fd: fd, events: events, handler: handler)
        return SourceID(value: id)
    }

    public func update(_ id: SourceID, events: Events) { sources[id.value]?.events = events }

    public func remove(_ id: SourceID) { sources[id.value] = nil }

    /// Runs `handler` once, `milliseconds` from now.
    @discardableResult
    public func schedule(afterMilliseconds milliseconds: Int64, _ handler: @escaping () -> Void) -> TimerID {
        schedule(atMonotonic: Clock.monotonicMilliseconds() + max(0, milliseconds), handler)
    }

    /// Runs `handler` once at `deadline` on `Clock.monotonicMilliseconds()`.
    @discardableResult
    public func schedule(atMonotonic deadline: Int64, _ handler: @escaping () -> Void) -> TimerID {
        let id = nextID
        nextID += 1
        sequence += 1
        timers.push(Timer(deadline: deadline, sequence: sequence, id: id))
        timerHandlers[id] = handler
        return TimerID(value: id)
    }

    /// Cancelled timers stay in the heap until their time and are skipped then.
    public func cancel(_ timer: TimerID) { timerHandlers[timer.value] = nil }

    /// Runs after every turn of the loop (libdbus's dispatch queue is drained here).
    public func afterEachTurn(_ hook: @escaping () -> Void) { hooks.append(hook) }

    public func stop() { stopping = true }

    /// Turns until `stop()`.
    public func run() {
        stopping = false
        while !stopping { turn(maxWaitMilliseconds: -1) }
    }

    /// One turn: wait for a descriptor or the next timer (at most `maxWaitMilliseconds`,
    /// -1 for no limit), run what is ready, then the hooks.
    public func turn(maxWaitMilliseconds: Int32) {
        for hook in hooks { hook() }
        var wait = maxWaitMilliseconds
        while let next = timers.first, timerHandlers[next.id] == nil { timers.pop() }
        if let next = timers.first, !arm(at: next.deadline) {
            let left = max(0, next.deadline - Clock.monotonicMilliseconds())
            let capped = Int32(min(left, Int64(Int32.max)))
            wait = wait < 0 ? capped : min(wait, capped)
        }
        let ids = sources.keys.filter { !sources[$0]!.events.isEmpty }
        var fds = ids.map { pollfd(fd: sources[$0]!.fd, events: sources[$0]!.events.rawValue, revents: 0) }
        if bootClockTimer >= 0 { fds.append(pollfd(fd: bootClockTimer, events: Int16(POLLIN), revents: 0)) }
        let n = poll(&fds, nfds_t(fds.count), wait)
        if n > 0 {
            if bootClockTimer >= 0, fds[ids.count].revents != 0 {
                var expirations: UInt64 = 0
                _ = read(bootClockTimer, &expirations, 8)
                armedDeadline = .max
            }
            for (i, id) in ids.enumerated() where fds[i].revents != 0 {
                // A handler may have removed this source (or others) meanwhile.
                guard let source = sources[id], source.fd == fds[i].fd else { continue }
                source.handler(Events(rawValue: fds[i].revents))
            }
        }
        let now = Clock.monotonicMilliseconds()
        while let next = timers.first, next.deadline <= now {
            timers.pop()
            if let handler = timerHandlers.removeValue(forKey: next.id) { handler() }
        }
        for hook in hooks { hook() }
    }

    /// Arms the boot clock's timer at `deadline` (absolute, in
    /// `Clock.monotonicMilliseconds()`); false when there is no such timer. A
    /// deadline already past expires at once; an expiry whose timer was cancelled
    /// only wakes the loop, which re-arms at the next deadline.
    private func arm(at deadline: Int64) -> Bool {
        guard bootClockTimer >= 0 else { return false }
        if deadline == armedDeadline { return true }
        let at = max(deadline, 0)
        var spec = itimerspec()
        spec.it_value.tv_sec = Int(at / 1000)
        // A zero it_value would disarm the timer: the boot clock is never at 0, so 1 ns is "now".
        spec.it_value.tv_nsec = Int(at % 1000) * 1_000_000 + (at == 0 ? 1 : 0)
        guard timerfd_settime(bootClockTimer, Int32(TFD_TIMER_ABSTIME), &spec, nil) == 0 else { return false }
        armedDeadline = deadline
        return true
    }
}
