import DBusKit
import LinkRouterCore
import Store
import SystemKit

/// The durable side: every session change is written before it is
/// acknowledged; at start the pending sessions come back, with their
/// objects, expiry timers and loopback listeners.
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

    /// Writes a session: a new row for a new session, its changing columns otherwise.
    func persist(_ s: Session, new: Bool = false) throws(RouterError) {
        guard config.storeDirectory != nil else { return }
        guard let store else {
            throw RouterError(.storageFailed, "the session store is unavailable (\(storeProblem ?? "unknown")); nothing was changed")
        }
        do { try new ? store.insert(s) : store.update(s) } catch {
            log.write(.error, "Failed to write \(s.logTag) to the store: \(error.message)")
            throw RouterError(.storageFailed, "the session could not be written to the store (\(error.message)); nothing was changed")
        }
    }

    /// Folds the WAL back a moment after secrets were wiped (coalescing bursts).
    func scheduleCheckpoint() {
        guard store != nil, checkpointTimer == nil else { return }
        checkpointTimer = loop.schedule(afterMilliseconds: 2000) { [weak self] in
            self?.checkpointTimer = nil
            self?.store?.checkpoint()
        }
    }

    func restoreSessions() {
        guard let store else { return }
        // Unique names are reused by a new bus: sessions of another bus keep no owner.
        let busID = (try? connection.callArguments(DBusMessage.methodCall("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId")).first?.stringValue) ?? nil
        let previousBus = try? store.meta("bus_id")
        let sameBus = busID != nil && previousBus == busID
        if let busID { try? store.setMeta("bus_id", busID) }
        let t = now
        var owners: Set<String> = []
        var loaded = 0
        do {
            let expected = try store.count()
            router.reserveCapacity(expected)
            deadlines.reserveCapacity(expected)
            let problems = try store.forEach { stored in
                var s = stored
                // A wall clock far behind the stored times (threat model P5): treat as expired.
                if !s.status.isFinished && (s.createdAt > t + 300 || s.expiresAt - s.createdAt > Int64(config.limits.maxTTL)) {
                    s = Session.expiredForClock(s, now: t)
                }
                router.insert(s)
                if let o = s.owner { owners.insert(o) }
                loaded += 1
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
        var cancelled: [Session] = []
        for owner in owners where !sameBus || !nameHasOwner(owner) {
            for s in router.ownerVanished(owner, now: t) { router.replace(s); cancelled.append(s) }
        }
        if !cancelled.isEmpty {
            // Not fatal: a row left pending is cancelled again at the next start.
            do { try store.update(cancelled) } catch {
                Log.error("Failed to record \(cancelled.count) sessions whose owners left as cancelled: \(error.message)")
            }
        }
        for s in router.all where !s.status.isFinished && s.redirect.style == .loopback {
            if let host = s.redirect.loopbackHost {
                let address = host == "[::1]" ? "::1" : "127.0.0.1"
                do {
                    listeners[s.id] = try startListener(for: s.id, address: address, port: s.redirect.loopbackPort, hostLiteral: host, path: s.redirect.uri.path)
                } catch {
                    let failed = Session.failedListener(s, reason: error.description, now: t)
                    router.replace(failed)
                    try? store.update(failed)
                    Log.warning("Could not listen again for \(s.logTag): \(error.description); the session failed")
                }
            }
        }
        for s in router.all { deadlines.push(router.deadline(of: s), s.id) }
        armDeadlineTimer()
        if loaded > 0 {
            Log.notice("Restored \(loaded) sessions from \(store.path) (\(router.pendingCount) pending)")
        }
    }

    func nameHasOwner(_ name: String) -> Bool {
        let call = DBusMessage.methodCall("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner")
        guard (try? call.append(.string(name))) != nil, let reply = try? connection.callArguments(call, timeoutMilliseconds: 5000),
              case .boolean(let b)? = reply.first else { return false }
        return b
    }
}
