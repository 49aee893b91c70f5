import LinkRouterCore
import LinkRouterFiles
import Loopback
import Store
import SystemKit

/// The sessions component: the store that keeps sessions durable, the
/// deadlines that move them on, the timers of operations, the loopback
/// listeners that catch their redirects, and the list of pending https
/// callbacks linkctl reads while the daemon is down. The sessions themselves
/// are the core's (`Core`).
final class Sessions {
    private(set) var store: SessionStore?
    /// Why the store is unavailable, for error messages (nil when it is fine).
    private(set) var storeProblem: String?
    let storeDirectory: String?
    let loop: EventLoop
    private var deadlines = DeadlineQueue()
    /// The one loop timer that serves `deadlines`, and when it fires.
    private var deadlineTimer: (id: EventLoop.TimerID, at: Int64)?
    private var checkpointTimer: EventLoop.TimerID?
    /// The loop timers of `Operation.timer`s (a `Wait`'s timeout), by operation.
    private var timers: [OperationID: EventLoop.TimerID] = [:]
    private var listeners: [SessionID: LoopbackListener] = [:]
    /// The session whose listener is answering a request right now (it closes after its page).
    private var serving: SessionID?
    private var publishedClaimedVersion = -1
    private(set) var restoredCount: UInt64 = 0
    private(set) var writeFailures: UInt64 = 0
    /// A deadline came due: the daemon asks the core about the session.
    var onDeadline: (SessionID) -> Void = { _ in }
    /// The store was checkpointed after a burst: the daemon gives the core's room back too.
    var onCheckpoint: () -> Void = {}

    /// Where the https callbacks pending sessions wait on are published (`ClaimedCallbacksFile`).
    private let claimedCallbacksFile: String?

    init(storeDirectory: String?, claimedCallbacksFile: String? = nil, loop: EventLoop) {
        self.storeDirectory = storeDirectory
        self.claimedCallbacksFile = claimedCallbacksFile
        self.loop = loop
    }

    // MARK: The store

    func openStore() {
        guard let dir = storeDirectory else { return }
        do {
            let s = try SessionStore(directory: dir)
            store = s
            storeProblem = nil
            if case .quarantined(let moved, let reason) = s.opening {
                Log.warning(
                    "Session store \(s.path) was unusable (\(reason)); moved it to \(moved) and started a fresh one")
            }
            for p in s.migrationProblems { Log.warning("Session store: \(p)") }
        } catch {
            store = nil
            storeProblem = error.message
            Log.error(
                "Failed to open the session store in \(dir): \(error.message); BeginSession will refuse until it can be opened"
            )
        }
    }

    /// Writes what a transition changed, in one transaction (retrying a store that failed to open).
    func write(_ changes: [SessionChange]) throws(RouterError) {
        guard storeDirectory != nil, changes.contains(where: \.isWritten) else { return }
        if store == nil { openStore() }
        let begins = changes.contains { if case .insert = $0 { true } else { false } }
        guard let store else {
            throw RouterError(
                .storageFailed,
                begins
                    ? "the session store is unavailable (\(storeProblem ?? "unknown reason")), so a session could not be kept safe; nothing was started"
                    : "the session store is unavailable (\(storeProblem ?? "unknown")); nothing was changed")
        }
        do { try store.write(changes) } catch {
            writeFailures += 1
            throw RouterError(
                .storageFailed,
                "the session could not be written to the store (\(error.message)); \(begins ? "nothing was started" : "nothing was changed")"
            )
        }
    }

    /// The `Store` property: where sessions are kept, or why they cannot be.
    var storeDescription: String {
        guard storeDirectory != nil else { return "" }
        if let store { return store.path }
        return "unavailable: " + (storeProblem ?? "unknown")
    }

    /// Every stored session and the bus their owners were on; a damaged store is moved aside.
    func load() -> (sessions: [Session], previousBusID: String?) {
        guard let store else { return ([], nil) }
        var sessions: [Session] = []
        do {
            sessions.reserveCapacity(try store.count())
            let problems = try store.forEach { sessions.append($0) }
            for p in problems { Log.warning("Session store: \(p)") }
        } catch  where error.isCorruption {
            Log.warning(
                "Session store \(store.path) is damaged (\(error.message)); moving it aside and starting a fresh one")
            self.store = nil
            do { try SessionStore.quarantine(directory: storeDirectory!) } catch {
                Log.error("Failed to move the damaged store aside: \(error.message)")
            }
            openStore()
            return ([], nil)
        } catch {
            Log.error("Failed to read the session store: \(error.message); starting with no sessions")
            return ([], nil)
        }
        restoredCount = UInt64(sessions.count)
        deadlines.reserveCapacity(sessions.count)
        return (sessions, try? store.meta("bus_id"))
    }

    func recordBusID(_ id: String) { try? store?.setMeta("bus_id", id) }

    /// Folds the WAL back a moment after secrets were wiped (coalescing bursts).
    func scheduleCheckpoint() {
        guard store != nil, checkpointTimer == nil else { return }
        checkpointTimer = loop.schedule(afterMilliseconds: 2000) { [weak self] in
            guard let self else { return }
            checkpointTimer = nil
            store?.checkpoint()
            // Sessions just went (or their secrets): give their memory back too (soak, issue 13 §5).
            onCheckpoint()
            deadlines.shrinkIfSparse()
            Memory.returnFreePages()
        }
    }

    func checkpointNow() { store?.checkpoint() }

    /// Writes every changed session back as it was (a fallible effect failed; `Core.undo` takes them back in).
    func undo(_ changes: [SessionChange], before: [Session?]) {
        var restore: [SessionChange] = []
        for (change, old) in zip(changes, before) {
            if let old { restore.append(.update(old)) } else { restore.append(.remove(change.id)) }
        }
        do { try write(restore) } catch {
            Log.error(
                "Failed to undo a change in the store: \(error.message); the store holds it until the session's next write"
            )
        }
    }

    // MARK: Deadlines

    func schedule(_ id: SessionID, at deadline: Int64) {
        deadlines.push(deadline, id)
        armDeadlineTimer()
    }

    /// Keeps the loop's one timer at the earliest deadline (wall seconds, so
    /// a restore after downtime catches up at once).
    private func armDeadlineTimer() {
        guard let earliest = deadlines.earliest else { return }
        if let armed = deadlineTimer, armed.at <= earliest { return }
        if let armed = deadlineTimer { loop.cancel(armed.id) }
        let delay = max(0, earliest - Clock.unixSeconds()) * 1000
        let id = loop.schedule(afterMilliseconds: delay) { [weak self] in
            guard let self else { return }
            deadlineTimer = nil
            for id in deadlines.popDue(Clock.unixSeconds()) { onDeadline(id) }
            armDeadlineTimer()
        }
        deadlineTimer = (id, earliest)
    }

    // MARK: Timers

    /// `Operation.timer`: `fire` runs once after `milliseconds`, unless cancelled.
    func startTimer(_ op: OperationID, milliseconds: Int64, _ fire: @escaping () -> Void) {
        timers[op] = loop.schedule(afterMilliseconds: milliseconds) { [weak self] in
            self?.timers[op] = nil
            fire()
        }
    }

    func cancelTimer(_ op: OperationID) {
        if let t = timers.removeValue(forKey: op) { loop.cancel(t) }
    }

    // MARK: Loopback listeners

    /// A free loopback port for a registered client's redirect (`LoopbackPort`), by the listeners' own rules.
    func freePort(_ binding: LoopbackBinding) -> Result<Int, RouterError> {
        do throws(ListenerError) { return .success(try LoopbackPort.free(binding)) } catch {
            return .failure(
                RouterError(.listenerFailed, "no loopback port could be bound for the client's redirect: \(error)"))
        }
    }

    /// `Operation.listen`: binds the session's listener; its requests go to `handle`.
    func listen(
        _ id: SessionID, binding: LoopbackBinding, path: String, page: (path: String, serve: () -> HTTPResponse)? = nil,
        handle: @escaping (HTTPRequest, SessionID, Int) -> HTTPResponse
    ) -> Result<Int, RouterError> {
        do {
            let listener = try LoopbackListener(
                addresses: binding.addresses, port: binding.port, hostLiteral: binding.hostLiteral,
                path: path, loop: loop, page: page
            ) { [unowned self] request in
                guard let l = listeners[id] else { return HTTPResponse(status: 400, body: CallbackPage.status(400)) }
                serving = id
                defer { serving = nil }
                return handle(request, id, l.port)
            }
            listener.onFinished = { [weak self] in self?.listeners.removeValue(forKey: id)?.close() }
            listeners[id] = listener
            return .success(listener.port)
        } catch {
            return .failure(RouterError(.listenerFailed, error.description))
        }
    }

    /// Stops a session's listener; one answering this very request closes once its page is sent.
    func closeListener(_ id: SessionID) {
        if serving != id { listeners.removeValue(forKey: id)?.close() }
    }

    func closeAllListeners() {
        for (_, l) in listeners { l.close() }
        listeners = [:]
    }

    // MARK: Claimed callbacks

    /// Rewrites the claimed-callbacks list when the set of pending https
    /// callbacks changed, so `linkctl open` can queue, not browse, such a
    /// link while the daemon is down.
    /// `version` is the core's count of changes to the set; the set is asked for only when it moved.
    func publishClaimedCallbacks(version: Int, _ callbacks: () -> ClaimedCallbacks) {
        guard version != publishedClaimedVersion, let path = claimedCallbacksFile else { return }
        do { try ClaimedCallbacksFile.write(callbacks(), to: path) } catch {
            Log.warning("Failed to publish the claimed callbacks to \(path): \(error)")
        }
        publishedClaimedVersion = version
    }
}
