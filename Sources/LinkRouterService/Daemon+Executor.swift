import DBusKit
import DesktopIntegration
import LinkRouterAPI
import LinkRouterCore
import Loopback
import SystemKit

/// The executor: the one place a transition is carried out. The core
/// decides (`Router`, which returns a `Transition`); this file acts, in the
/// order `Transition` documents:
///
/// 1. the changes are written to the store (one transaction); if that fails,
///    `ifWriteFails` decides: `.refuse` stops here and the caller hears
///    `StorageFailed` (nothing changed), `.keepInMemory` logs and goes on;
/// 2. the changes are taken into the router;
/// 3. the effects run by `Effect.rank`: fallible ones first; if one of those
///    fails, the changes are undone (the previous copies written back and
///    taken in), no later effect runs, and the caller hears why; when the
///    effect was reopening `resume_uri` in the browser that began the login,
///    that session then fails (`Router.resumeBrowserFailed`), as no other
///    browser holds its cookies;
/// 4. the reply goes back to the caller (`Transition.Reply`), or the refusal is thrown.
extension Daemon {
    @discardableResult
    func execute(_ t: Transition, call: MethodCall? = nil, shape: Waiter.Shape = .result) throws(RouterError) -> Transition.Reply {
        if case .refused(let error) = t.reply {
            counters.linksRefused += 1
            for case .log(let line) in t.effects { write(line) }
            throw error
        }
        if !t.changes.isEmpty {
            do { try write(t.changes) } catch {
                switch t.ifWriteFails {
                case .refuse:
                    for case .insert(let s) in t.changes { listeners.removeValue(forKey: s.id)?.close() }
                    throw error
                case .keepInMemory:
                    log.write(.error, "Failed to record \(t.changes.count == 1 ? t.changes[0].id.logTag : "\(t.changes.count) sessions") in the store: \(error.message); keeping the change in memory")
                }
            }
        }
        // Previous copies, to undo with, only when an effect can fail that way.
        let before = t.effects.contains { $0.undoesOnFailure } ? t.changes.map { router.session($0.id) } : []
        router.apply(t.changes)
        var answerLater = false
        for effect in Self.ordered(t.effects) {
            do { answerLater = try perform(effect, call: call, shape: shape) || answerLater } catch {
                guard effect.undoesOnFailure else {
                    log.write(.warning, "\(error.message)")
                    continue
                }
                undo(t.changes, before: before)
                // Only the browser that began an app-to-app login can resume it.
                if case .openBrowser(_, .sameAs) = effect, error.code == .browserFailed, let id = t.changes.first?.id {
                    _ = try? execute(router.resumeBrowserFailed(id, reason: error.message, now: now))
                }
                throw error
            }
        }
        switch t.reply {
        case .routed: counters.linksRouted += 1
        case .begun: counters.sessionsBegun += 1
        default: break
        }
        return answerLater ? .deferred : t.reply
    }

    /// Effects by rank, keeping the core's order within a rank.
    static func ordered(_ effects: [Effect]) -> [Effect] {
        // The core mostly lists them in order already.
        if zip(effects, effects.dropFirst()).allSatisfy({ $0.rank <= $1.rank }) { return effects }
        return effects.enumerated().sorted { ($0.element.rank, $0.offset) < ($1.element.rank, $1.offset) }.map(\.element)
    }

    /// Puts every changed session back as it was, in the store and the router.
    func undo(_ changes: [SessionChange], before: [Session?]) {
        var restore: [SessionChange] = []
        for (change, old) in zip(changes, before) {
            if let old { restore.append(.update(old)) } else { restore.append(.remove(change.id)) }
            if case .insert(let s) = change { listeners.removeValue(forKey: s.id)?.close() }
        }
        do { try write(restore) } catch {
            log.write(.error, "Failed to undo a change in the store: \(error.message); the store holds it until the session's next write")
        }
        for case .remove(let id) in restore { router.remove(id) }
        for case .update(let s) in restore { router.replace(s) }
    }

    /// Carries out one effect; true when it keeps the caller's call to answer later.
    func perform(_ effect: Effect, call: MethodCall?, shape: Waiter.Shape) throws(RouterError) -> Bool {
        switch effect {
        case .deliver(let url, let app, let context):
            return try deliver(url, to: app, context: context, call: call)
        case .openBrowser(let url, let choice):
            try open(url, in: try browser(choice))
        case .requestResume(let id, let owner, let url):
            try sendResumeRequested(id, owner: owner, url: url)
        case .listen(let id):
            listenAgain(id)
        case .exchangeCode(let id):
            startExchange(id)
        case .parkWait(let id, let timeout):
            if let call { park(call, on: id, timeoutMilliseconds: timeout, shape: shape) }
        case .dropWaits(let name):
            dropWaits(of: name)
        case .closeListener(let id):
            // A listener answering this very callback closes once its page is sent.
            if servingLoopback != id { listeners.removeValue(forKey: id)?.close() }
        case .answerWaiters(let id):
            answerWaiters(of: id)
        case .emitStatus(let id, let status):
            emitStatusChanged(id, status)
        case .scheduleDeadline(let id, let at):
            deadlines.push(at, id)
            armDeadlineTimer()
        case .checkpoint:
            scheduleCheckpoint()
        case .log(let line):
            write(line)
        }
        return false
    }

    func write(_ line: LogLine) {
        let priority: Log.Priority
        switch line.priority {
        case .error: priority = .error
        case .warning: priority = .warning
        case .notice: priority = .notice
        case .info: priority = .info
        }
        log.write(priority, line.text)
    }

    // MARK: Waits

    /// Keeps a `Wait` (or `Login`) call until its session finishes or its timeout passes.
    func park(_ call: MethodCall, on id: SessionID, timeoutMilliseconds: UInt32, shape: Waiter.Shape) {
        let waiter = Waiter(call: call.message, sender: call.sender, shape: shape)
        if timeoutMilliseconds > 0 {
            waiter.timer = loop.schedule(afterMilliseconds: Int64(timeoutMilliseconds)) { [weak self, weak waiter] in
                guard let self, let waiter else { return }
                self.waiters[id]?.removeAll { $0 === waiter }
                let status = self.router.session(id)?.status.rawValue ?? "gone"
                self.reply(to: waiter.call, error: DBusError(RouterError(.timeout, "no callback arrived within \(timeoutMilliseconds) ms; the session is still \(status) and can be waited for again")))
            }
        }
        waiters[id, default: []].append(waiter)
    }

    /// Every parked `Wait` of the session hears what it now holds (or that it is gone).
    func answerWaiters(of id: SessionID) {
        guard let list = waiters.removeValue(forKey: id), !list.isEmpty else { return }
        let answer = router.session(id)?.waitAnswer
            ?? .failure(RouterError(.unknownSession, "the session was purged"))
        let value: DBusValue? = if case .success(let r) = answer { ResultDictionary.make(r) } else { nil }
        for w in list {
            if let t = w.timer { loop.cancel(t) }
            switch answer {
            case .success: reply(to: w.call, values: w.values(value!))
            case .failure(let e): reply(to: w.call, error: DBusError(e))
            }
        }
    }

    func dropWaits(of name: String) {
        for (id, list) in waiters where list.contains(where: { $0.sender == name }) {
            for w in list where w.sender == name { if let t = w.timer { loop.cancel(t) } }
            let kept = list.filter { $0.sender != name }
            waiters[id] = kept.isEmpty ? nil : kept
        }
    }

    // MARK: Signals

    /// `PropertiesChanged` for a session whose status moved (broadcast: status only, nothing secret).
    /// The body depends only on the status, so each is built once and copied.
    func emitStatusChanged(_ id: SessionID, _ status: SessionStatus) {
        do {
            let template: DBusMessage
            if let t = statusSignals[status] {
                template = t
            } else {
                template = try DBusMessage.signal(path: API.sessionsPath, interface: API.propertiesInterface, member: "PropertiesChanged")
                try template.append(.string(API.sessionInterface.rawValue), .vardict([("Status", .string(status.rawValue))]), .stringArray([]))
                statusSignals[status] = template
            }
            let signal = try template.copy()
            try signal.setPath(API.path(of: id))
            send(signal)
        } catch {
            log.write(.error, "Failed to emit PropertiesChanged for \(id.logTag): \(error.message)")
        }
    }

    /// `resume=client`: the owner reopens `resume_uri` itself (a unicast signal, never a broadcast).
    func sendResumeRequested(_ id: SessionID, owner: String, url: String) throws(RouterError) {
        do throws(DBusError) {
            guard let destination = BusName(owner) else { throw DBusError(name: DBusError.invalidArgs, message: "the owner \(owner) is not a bus name") }
            let signal = try DBusMessage.signal(path: API.path(of: id), interface: API.sessionInterface, member: "ResumeRequested")
            try signal.setDestination(destination)
            try signal.append(.string(url))
            send(signal)
        } catch {
            throw RouterError(.internalError, "could not send ResumeRequested: \(error.message)")
        }
    }

    // MARK: Deadlines

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
            for id in self.deadlines.popDue(t) { _ = try? self.execute(self.router.deadlineReached(id, now: t)) }
            self.armDeadlineTimer()
        }
        deadlineTimer = (id, earliest)
    }
}

extension SessionID {
    /// A short, non-reversible tag for logs (the id's first characters).
    var logTag: String { "session \(rawValue.prefix(8))" }
}
