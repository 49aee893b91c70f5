import DBusKit
import LinkRouterCore
import Store
import SystemKit

/// The durable side: every change is written before it is acknowledged (the
/// executor's step 1); at start the sessions come back, with their objects,
/// deadlines and loopback listeners.
extension Daemon {
    func openStore() {
        guard let dir = config.storeDirectory else { return }
        do {
            let s = try SessionStore(directory: dir)
            store = s
            storeProblem = nil
            if case .quarantined(let moved, let reason) = s.opening {
                Log.warning("Session store \(s.path) was unusable (\(reason)); moved it to \(moved) and started a fresh one")
            }
        } catch {
            store = nil
            storeProblem = error.message
            Log.error("Failed to open the session store in \(dir): \(error.message); BeginSession will refuse until it can be opened")
        }
    }

    /// True when sessions can be written (retrying a store that failed to open).
    func ensureStore() -> Bool {
        guard config.storeDirectory != nil else { return true }
        if store == nil { openStore() }
        return store != nil
    }

    /// Writes what a transition changed, in one transaction.
    func write(_ changes: [SessionChange]) throws(RouterError) {
        guard config.storeDirectory != nil, !changes.isEmpty else { return }
        guard let store else {
            throw RouterError(.storageFailed, "the session store is unavailable (\(storeProblem ?? "unknown")); nothing was changed")
        }
        do { try store.write(changes) } catch {
            counters.storeWriteFailures += 1
            log.write(.error, "Failed to write \(changes[0].id.logTag)\(changes.count > 1 ? " and \(changes.count - 1) more" : "") to the store: \(error.message)")
            throw RouterError(.storageFailed, "the session could not be written to the store (\(error.message)); nothing was changed")
        }
    }

    /// Folds the WAL back a moment after secrets were wiped (coalescing bursts).
    func scheduleCheckpoint() {
        guard store != nil, checkpointTimer == nil else { return }
        checkpointTimer = loop.schedule(afterMilliseconds: 2000) { [weak self] in
            guard let self else { return }
            checkpointTimer = nil
            store?.checkpoint()
            // Sessions just went (or their secrets): give their memory back too (soak, issue 13 §5).
            router.compact()
            deadlines.shrinkIfSparse()
            if waiters.isEmpty { waiters = [:] }
            Memory.returnFreePages()
        }
    }

    /// The restore event: rows stream into the router, then one transition
    /// settles owners that left, listeners and deadlines.
    func restoreSessions() {
        guard let store else { return }
        // Unique names are reused by a new bus: sessions of another bus keep no owner.
        let busID = (try? connection.callArguments(DBusMessage.methodCall("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId")).first?.stringValue) ?? nil
        let previousBus = try? store.meta("bus_id")
        let sameBus = busID != nil && previousBus == busID
        if let busID { try? store.setMeta("bus_id", busID) }
        let t = now
        var owners: Set<String> = []
        do {
            let expected = try store.count()
            router.reserveCapacity(expected)
            deadlines.reserveCapacity(expected)
            let problems = try store.forEach { stored in
                router.restore(stored, now: t)
                counters.sessionsRestored += 1
                if let o = stored.owner { owners.insert(o) }
            }
            for p in problems { Log.warning("Session store: \(p)") }
        } catch where error.isCorruption {
            Log.warning("Session store \(store.path) is damaged (\(error.message)); moving it aside and starting a fresh one")
            for s in router.all { router.remove(s.id) }
            self.store = nil
            do { try SessionStore.quarantine(directory: config.storeDirectory!) } catch {
                Log.error("Failed to move the damaged store aside: \(error.message)")
            }
            openStore()
            return
        } catch {
            Log.error("Failed to read the session store: \(error.message); starting with no sessions")
            for s in router.all { router.remove(s.id) }
            return
        }
        // Not fatal if the write fails: a row left pending is cancelled again at the next start.
        _ = try? execute(router.restored(ownersGone: owners.filter { !sameBus || !nameHasOwner($0) }, now: t))
    }

    /// The `Store` property: where sessions are kept, or why they cannot be.
    var storeDescription: String {
        guard config.storeDirectory != nil else { return "" }
        if let store { return store.path }
        return "unavailable: " + (storeProblem ?? "unknown")
    }

    func nameHasOwner(_ name: String) -> Bool {
        let call = DBusMessage.methodCall("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner")
        guard (try? call.append(.string(name))) != nil, let reply = try? connection.callArguments(call, timeoutMilliseconds: 5000),
              case .boolean(let b)? = reply.first else { return false }
        return b
    }
}
