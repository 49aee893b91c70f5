import DBusKit
import LinkRouterAPI
import LinkRouterCore
import SystemKit

/// The executor: the one place a transition is carried out, in the order
/// `Transition` documents (write, take in, fallible effects, core changes,
/// every other effect by `Effect.rank`, reply). It decides nothing: each
/// effect goes to the component that owns what it touches, and whatever
/// follows from a failure is asked of the core as an event of its own.
extension Daemon {
    /// Carries out `t` and returns what the caller hears (`.held` when the
    /// call is kept for an operation's outcome: the handler hands it to the bus).
    @discardableResult
    func execute(_ t: Transition) -> Transition.Reply {
        // 1. Write.
        if !t.changes.isEmpty {
            do { try sessions.write(t.changes) } catch {
                let what = t.changes.count == 1 ? t.changes[0].id.logTag : "\(t.changes.count) sessions"
                switch t.ifWriteFails {
                case .refuse:
                    log.write(.error, "Failed to record \(what) in the store: \(error.message)")
                    return abandon(t, error)
                case .keepInMemory:
                    log.write(
                        .error, "Failed to record \(what) in the store: \(error.message); keeping the change in memory")
                }
            }
        }
        // 2. Take in the sessions (keeping the previous copies when an effect may undo them).
        let fallible = Self.ordered(t.effects.filter(\.undoesOnFailure))
        let before = fallible.isEmpty ? [] : t.changes.map { core.router.session($0.id) }
        core.apply(t.changes)
        // 3. Fallible effects: a failure undoes the changes, and nothing later runs.
        for effect in fallible {
            do { try performFallible(effect) } catch {
                sessions.undo(t.changes, before: before)
                core.undo(t.changes, before: before)
                let reply = abandon(t, error)
                execute(core.router.effectFailed(effect, undone: t.changes, error: error, now: now))
                return reply
            }
        }
        // 4. The core's own tables; the proof signer keeps only the keys of tokens still held.
        core.apply(core: t.core)
        if t.core.contains(where: { if case .account = $0 { true } else { false } }) {
            bus.proofs.keep(Set(core.router.keepers.values.compactMap { $0.tokens?.dpopKey?.thumbprint }))
        }
        // 5. Every other effect, by rank (the core's order within a rank).
        for effect in Self.ordered(t.effects) where !effect.undoesOnFailure { perform(effect) }
        // 6. The reply.
        return t.reply
    }

    /// The transition cannot go on (its write was refused, or a fallible
    /// effect failed): what was done for it is compensated, and the calls
    /// held for this very event hear `error` instead of their answer. A held
    /// `Wait` whose session the failure left unchanged goes on waiting.
    private func abandon(_ t: Transition, _ error: RouterError) -> Transition.Reply {
        for effect in Self.ordered(t.compensation) { perform(effect) }
        let router = core.router
        var calls = Set(t.answered)
        for change in t.core {
            // Work this event would have carried on under a live operation: the call held there hears the failure.
            switch change {
            case .track(let op, _), .advance(let op, _), .hold(let op, _): if router.isLive(op) { calls.insert(op) }
            case .finish, .caller, .appFace, .account, .restartWhenIdle, .stopWhenSettled: break
            }
        }
        for op in calls.sorted() where !router.holdsWait(op) {
            answer(op, .refused(error))
            core.apply(core: [.finish(op)])
        }
        return .refused(error)
    }

    /// Effects by rank, keeping the core's order within a rank.
    static func ordered(_ effects: [Effect]) -> [Effect] {
        // The core mostly lists them in order already.
        if zip(effects, effects.dropFirst()).allSatisfy({ $0.rank <= $1.rank }) { return effects }
        // A bucket per rank (a handful): one pass, stable, no comparisons (an
        // owner of 10,000 sessions leaving makes 40,000 effects).
        var buckets: [[Effect]] = []
        for e in effects {
            while buckets.count <= e.rank { buckets.append([]) }
            buckets[e.rank].append(e)
        }
        return Array(buckets.joined())
    }

    /// A fallible effect (`Effect.undoesOnFailure`).
    func performFallible(_ effect: Effect) throws(RouterError) {
        switch effect {
        case .openBrowser(let url, let choice, let handOff): try launcher.open(url, in: choice, handOff: handOff)
        case .requestResume(let id, let owner, let url): try bus.sendResumeRequested(id, owner: owner, url: url)
        case .requestReturn(let id, let owner, let handOff):
            try bus.sendReturnRequested(id, owner: owner, handOff: handOff)
        case .openForward(let forward): try agent.open(forward)
        case .start, .cancel, .answer, .forget, .closeListener, .emitStatus, .accountChanged, .scheduleDeadline,
            .checkpoint,
            .recordBusID, .setAside, .dropSetAside, .carrySignIns, .notify, .closeNotification, .log, .serve, .restart,
            .stop, .closeForwards:
            perform(effect)
        }
    }

    /// Any other effect: each to the component that owns what it touches.
    func perform(_ effect: Effect) {
        switch effect {
        case .openBrowser, .requestResume, .requestReturn, .openForward:
            // Fallible, but here as compensation or a later effect: a failure is only logged.
            do { try performFallible(effect) } catch { log.write(.warning, error.message) }
        case .start(let op, let operation): start(op, operation)
        case .cancel(let op): sessions.cancelTimer(op)
        case .answer(let op, let reply): answer(op, reply)
        case .forget(let op): if !agent.forget(op) { bus.forget(op) }
        case .closeForwards(let owner): agent.closeForwards(of: owner)
        case .closeListener(let id): sessions.closeListener(id)
        case .emitStatus(let id, let status): bus.emitStatus(id, status)
        case .accountChanged(let news): bus.emitAccountChanged(news)
        case .scheduleDeadline(let id, let at): sessions.schedule(id, at: at)
        case .checkpoint: sessions.scheduleCheckpoint()
        case .recordBusID(let id): sessions.recordBusID(id)
        case .setAside(let key, let tokens): accounts.setAside(key, tokens)
        case .dropSetAside(let key): accounts.dropSetAside(key)
        case .carrySignIns(let keys): accounts.carrySignIns(keys)
        case .notify(let summary, let body): bus.notify(summary: summary, body: body)
        case .closeNotification(let id): bus.closeNotification(id)
        case .log(let line): write(line)
        case .serve: serve()
        case .restart:
            restarting = true
            loop.stop()
        case .stop:
            loop.stop()
        }
    }

    /// A held call's answer, to whoever holds it: the agent socket's connection, else the bus's caller.
    private func answer(_ op: OperationID, _ reply: Transition.Reply) {
        if !agent.answer(op, reply) { bus.answer(op, reply) }
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
}
