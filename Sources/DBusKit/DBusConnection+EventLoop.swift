internal import CDBus
import SystemKit

/// Drives a connection from an `EventLoop`: libdbus's watches become polled
/// descriptors, its timeouts become loop timers, and the dispatch queue is
/// drained after every turn.
extension DBusConnection {
    public func attach(to loop: EventLoop) {
        precondition(loopIntegration == nil, "a connection is attached to one loop")
        let integration = LoopIntegration(loop: loop)
        loopIntegration = integration
        let context = Unmanaged.passUnretained(integration).toOpaque()
        dbus_connection_set_watch_functions(raw, addWatch, removeWatch, toggleWatch, context, nil)
        dbus_connection_set_timeout_functions(raw, addTimeout, removeTimeout, toggleTimeout, context, nil)
        loop.afterEachTurn { [weak self] in self?.dispatchAll() }
    }

    func detachFromLoop() {
        guard loopIntegration != nil else { return }
        dbus_connection_set_watch_functions(raw, nil, nil, nil, nil, nil)
        dbus_connection_set_timeout_functions(raw, nil, nil, nil, nil, nil)
        loopIntegration?.removeAll()
        loopIntegration = nil
    }
}

/// The loop-side records of libdbus's watches and timeouts. It keeps the
/// loop alive: libdbus calls back into it until the connection is closed.
final class LoopIntegration {
    let loop: EventLoop
    var watches: [OpaquePointer: EventLoop.SourceID] = [:]
    var timeouts: [OpaquePointer: EventLoop.TimerID] = [:]

    init(loop: EventLoop) { self.loop = loop }

    static func events(for watch: OpaquePointer) -> EventLoop.Events {
        guard dbus_watch_get_enabled(watch) != 0 else { return [] }
        let flags = dbus_watch_get_flags(watch)
        var e: EventLoop.Events = []
        if flags & DBUS_WATCH_READABLE.rawValue != 0 { e.insert(.readable) }
        if flags & DBUS_WATCH_WRITABLE.rawValue != 0 { e.insert(.writable) }
        return e
    }

    func add(_ watch: OpaquePointer) {
        let fd = dbus_watch_get_unix_fd(watch)
        let id = loop.watch(fd, for: Self.events(for: watch)) { ready in
            var flags: UInt32 = 0
            if ready.contains(.readable) { flags |= DBUS_WATCH_READABLE.rawValue }
            if ready.contains(.writable) { flags |= DBUS_WATCH_WRITABLE.rawValue }
            if ready.contains(.error) { flags |= DBUS_WATCH_ERROR.rawValue }
            if ready.contains(.hangup) { flags |= DBUS_WATCH_HANGUP.rawValue }
            _ = dbus_watch_handle(watch, flags)
        }
        watches[watch] = id
    }

    func remove(_ watch: OpaquePointer) {
        if let id = watches.removeValue(forKey: watch) { loop.remove(id) }
    }

    func toggle(_ watch: OpaquePointer) {
        if let id = watches[watch] { loop.update(id, events: Self.events(for: watch)) }
    }

    func add(timeout: OpaquePointer) {
        guard dbus_timeout_get_enabled(timeout) != 0 else { return }
        let interval = Int64(dbus_timeout_get_interval(timeout))
        var id: EventLoop.TimerID?
        id = loop.schedule(afterMilliseconds: interval) { [weak self] in
            guard let self else { return }
            _ = dbus_timeout_handle(timeout)
            // libdbus timeouts repeat until removed; handling may have removed it.
            if let current = self.timeouts[timeout], current == id {
                self.timeouts[timeout] = nil
                self.add(timeout: timeout)
            }
        }
        timeouts[timeout] = id
    }

    func remove(timeout: OpaquePointer) {
        if let id = timeouts.removeValue(forKey: timeout) { loop.cancel(id) }
    }

    func toggle(timeout: OpaquePointer) {
        remove(timeout: timeout)
        add(timeout: timeout)
    }

    func removeAll() {
        for id in watches.values { loop.remove(id) }
        for id in timeouts.values { loop.cancel(id) }
        watches = [:]
        timeouts = [:]
    }
}

private func integration(_ data: UnsafeMutableRawPointer?) -> LoopIntegration {
    Unmanaged<LoopIntegration>.fromOpaque(data!).takeUnretainedValue()
}

private let addWatch: DBusAddWatchFunction = { watch, data in
    integration(data).add(watch!)
    return 1
}
private let removeWatch: DBusRemoveWatchFunction = { watch, data in integration(data).remove(watch!) }
private let toggleWatch: DBusWatchToggledFunction = { watch, data in integration(data).toggle(watch!) }
private let addTimeout: DBusAddTimeoutFunction = { timeout, data in
    integration(data).add(timeout: timeout!)
    return 1
}
private let removeTimeout: DBusRemoveTimeoutFunction = { timeout, data in integration(data).remove(timeout: timeout!) }
private let toggleTimeout: DBusTimeoutToggledFunction = { timeout, data in integration(data).toggle(timeout: timeout!) }
