import Crypto
import DBusKit
import LinkRouterAPI
import LinkRouterCore
import SystemKit

/// The life of sessions after `BeginSession`: waits, cancels, claims,
/// expiry, owners leaving, and the purge after the grace period.
extension Daemon {
    func wait(_ id: SessionID, timeoutMilliseconds: UInt32, call: DBusMessage, sender: String) throws(DBusError) -> MethodReply {
        let s: Session
        do { s = try router.owned(id, by: sender) } catch { throw Self.busError(error) }
        if let answer = s.waitAnswer {
            return .values([try deliver(answer, of: s)])
        }
        let waiter = Waiter(call: call, sender: sender)
        if timeoutMilliseconds > 0 {
            waiter.timer = loop.schedule(afterMilliseconds: Int64(timeoutMilliseconds)) { [weak self, weak waiter] in
                guard let self, let waiter else { return }
                self.waiters[id]?.removeAll { $0 === waiter }
                self.reply(to: waiter.call, error: Self.busError(RouterError(.timeout, "no callback arrived within \(timeoutMilliseconds) ms; the session is still \(self.router.session(id)?.status.rawValue ?? "gone") and can be waited for again")))
            }
        }
        waiters[id, default: []].append(waiter)
        return .deferred
    }

    /// The result for one `Wait`; a delivered code is wiped at once (issue: secrets).
    func deliver(_ answer: Result<AuthorizationResult, RouterError>, of s: Session) throws(DBusError) -> DBusValue {
        switch answer {
        case .success(let result):
            let value = ResultDictionary.make(result)
            let wiped = s.markedDelivered()
            do { try commit(wiped) } catch {
                log.write(.error, "Failed to record delivery of \(s.logTag): \(error.message)")
                router.replace(wiped)
            }
            scheduleCheckpoint()
            return value
        case .failure(let error):
            throw Self.busError(error)
        }
    }

    func cancel(_ id: SessionID, sender: String) throws(DBusError) {
        let s: Session
        do {
            let before = try router.owned(id, by: sender)
            s = try router.cancelling(id, by: sender, now: now)
            guard s != before else { return }
            try commit(s)
        } catch {
            throw Self.busError(error)
        }
        log.write(.info, "Cancelled \(s.logTag) at its owner's request")
        finished(s)
    }

    /// `Claim(token)`: a restarted client takes its session back (constant-time check).
    func claim(_ id: SessionID, token: String, sender: String) throws(DBusError) {
        let digest: [UInt8]
        do { digest = try SHA256.hash(token) } catch {
            throw DBusError(name: RouterError.Code.internalError.dbusName, message: "cannot hash the token: \(error)")
        }
        do {
            let s = try router.claiming(id, tokenDigest: digest, by: sender)
            try commit(s)
            log.write(.info, "\(s.logTag) claimed by \(sender)")
        } catch {
            log.write(.notice, "Refused a claim of session \(id.rawValue.prefix(8)) by \(sender): \(error.message)")
            throw Self.busError(error)
        }
    }

    /// A session just ended: answer its waiters, tell the bus its status,
    /// close its listener, and time its purge.
    func finished(_ s: Session) {
        emitStatusChanged(s)
        // A listener answering this very callback closes once its page is sent.
        if servingLoopback != s.id { listeners.removeValue(forKey: s.id)?.close() }
        answerWaiters(of: s)
        scheduleDeadline(router.session(s.id) ?? s)
    }

    func answerWaiters(of s: Session) {
        guard let list = waiters.removeValue(forKey: s.id), !list.isEmpty, let answer = s.waitAnswer else { return }
        var value: DBusValue?
        var error: DBusError?
        do { value = try deliver(answer, of: s) } catch let e { error = e }
        for w in list {
            if let t = w.timer { loop.cancel(t) }
            if let value { reply(to: w.call, values: [value]) } else if let error { reply(to: w.call, error: error) }
        }
    }

    /// A client left the bus: its waits are dropped; its sessions are parked
    /// (with a claim token) or cancelled (threat model D2).
    func ownerLeft(_ name: String) {
        for (id, list) in waiters {
            let kept = list.filter { $0.sender != name }
            for w in list where w.sender == name { if let t = w.timer { loop.cancel(t) } }
            waiters[id] = kept.isEmpty ? nil : kept
        }
        for s in router.ownerVanished(name, now: now) {
            let wasFinished = router.session(s.id)?.status.isFinished ?? true
            do { try commit(s) } catch {
                log.write(.error, "Failed to record that the owner of \(s.logTag) left: \(error.message)")
                router.replace(s)
            }
            if s.owner == nil && s.claimTokenDigest != nil {
                log.write(.info, "The owner of \(s.logTag) left the bus; the session is parked for Claim")
            } else if !wasFinished {
                log.write(.info, "The owner of \(s.logTag) left the bus; the session is cancelled")
                finished(s)
            }
        }
        scheduleCheckpoint()
    }

    /// Queues a session's next deadline: its expiry while unfinished, its purge after.
    func scheduleDeadline(_ s: Session) {
        let due = router.deadline(of: s)
        deadlines.push(due, s.id)
        armDeadlineTimer()
    }

    /// Keeps the loop's one timer at the earliest deadline (wall seconds, so
    /// a restore after downtime catches up at once).
    func armDeadlineTimer() {
        guard let earliest = deadlines.earliest else { return }
        if let armed = deadlineTimer, armed.at <= earliest { return }
        if let armed = deadlineTimer { loop.cancel(armed.id) }
        let delay = max(0, earliest - now) * 1000
        let id = loop.schedule(afterMilliseconds: delay) { [weak self] in
            guard let self else { return }
            self.deadlineTimer = nil
            let t = self.now
            for id in self.deadlines.popDue(t) { self.deadlineReached(id, now: t) }
            self.armDeadlineTimer()
        }
        deadlineTimer = (id, earliest)
    }

    /// A queued deadline came due; the session's own deadline says whether it still stands.
    func deadlineReached(_ id: SessionID, now t: Int64) {
        guard let s = router.session(id), t >= router.deadline(of: s) else { return }
        if let expired = router.expiring(id, now: t) {
            do { try commit(expired) } catch {
                log.write(.error, "Failed to record the expiry of \(s.logTag): \(error.message)")
                router.replace(expired)
            }
            log.write(.info, "\(s.logTag) expired")
            listeners.removeValue(forKey: id)?.close()
            finished(expired)
        } else if s.status.isFinished {
            purge(id)
        }
    }

    /// The session's last trace goes; its object disappears from the bus.
    func purge(_ id: SessionID) {
        listeners.removeValue(forKey: id)?.close()
        for w in waiters.removeValue(forKey: id) ?? [] {
            if let t = w.timer { loop.cancel(t) }
            reply(to: w.call, error: DBusError(name: RouterError.Code.unknownSession.dbusName, message: "the session was purged"))
        }
        router.remove(id)
        do { try store?.delete(id) } catch { log.write(.error, "Failed to delete a purged session from the store: \(error)") }
        scheduleCheckpoint()
    }
}
