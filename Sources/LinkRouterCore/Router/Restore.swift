/// Start-up: the stored sessions are in; the bus is asked who is still on it
/// (its id too: unique names repeat across buses), and `Router.restored`
/// settles the owners that left, the listeners, the polls and the deadlines.
public struct Restore: OperationMachine {
    /// The bus the stored sessions' owners were on, as the store recorded it.
    public let previousBusID: String?

    public enum Work: Sendable, Equatable {
        case busNames
    }

    public enum Event: Sendable {
        case busNames(Result<BusSnapshot, RouterError>)
    }

    var running: Running { .restore(self) }

    init?(_ running: Running) {
        guard case .restore(let m) = running else { return nil }
        self = m
    }

    init(previousBusID: String?) { self.previousBusID = previousBusID }

    mutating func handle(_ event: Event, op: OperationID, _ turn: inout Turn) -> Transition {
        switch event {
        case .busNames(let r):
            var t = Transition(core: [.finish(op)])
            if case .failure(let e) = r {
                t.effects.append(
                    .log(
                        LogLine(
                            .warning,
                            "Could not ask the bus who is on it (\(e.message)); every stored owner is taken as gone")))
            }
            let bus: BusSnapshot? = if case .success(let b) = r { b } else { nil }
            return t.then(restored(bus: bus, &turn))
        }
    }

    /// Every row is back and the bus has said who is on it: owners that are
    /// gone get their sessions parked or cancelled (as `ownerGone` would, but
    /// no one is listening yet), each login takes up what it was doing
    /// (`restart`), every session's deadline is queued, and the daemon starts serving.
    private func restored(bus: BusSnapshot?, _ turn: inout Turn) -> Transition {
        let core = turn.core
        var t = Transition(ifWriteFails: .keepInMemory)
        // Unique names are reused by a new bus: sessions of another bus keep no owner.
        let sameBus = bus != nil && bus?.id == previousBusID
        var gone: Set<String> = []
        // Read in place (`sessions[i]`): a copy of each of 10,000 sessions was a fifth of a restore.
        for i in core.sessions.indices {
            if let o = core.sessions[i].ownerName, !sameBus || !(bus?.names.contains(o) ?? false) { gone.insert(o) }
        }
        var changed: [SessionID: Session] = [:]
        for name in gone {
            for s in core.sessions.left(by: name, now: turn.now) {
                changed[s.id] = s
                t.changes.append(.update(s))
            }
        }
        t.effects.reserveCapacity(core.count + 3)
        var pending = 0
        for i in core.sessions.indices {
            let unfinished =
                if let c = changed[core.sessions[i].id] {
                    Self.restart(c, &t, &turn)
                } else {
                    Self.restart(core.sessions[i], &t, &turn)
                }
            if unfinished { pending += 1 }
        }
        // Listed in the executor's order (`Effect.rank`), so it has nothing to sort.
        if let bus { t.effects.append(.recordBusID(bus.id)) }
        if core.count > 0 {
            let (count, unfinished) = (core.count, pending)
            t.effects.append(.log(LogLine(.notice, "Restored \(count) sessions (\(unfinished) pending)")))
        }
        t.effects.append(.serve)
        return t
    }

    /// What a restored session needs again: a result that held tokens fails
    /// (they were never written), its login takes up its work (an exchange, a
    /// listener, a poll), and its deadline is queued. Whether it is still unfinished.
    private static func restart(_ s: borrowing Session, _ t: inout Transition, _ turn: inout Turn) -> Bool {
        var failed: Session?
        // Tokens are never stored: a result that held them is gone with the old process.
        if s.login.exchange != nil && s.holdsResult {
            let f = (copy s).finished(
                .failed,
                failure: SessionFailure(
                    code: .tokenExchangeFailed,
                    message:
                        "the daemon restarted before the tokens were collected; tokens are never written to disk, so begin a new login"
                ),
                now: turn.now
            ).wiped()
            t.changes.append(.update(f))
            failed = f
        }
        let status = failed?.status ?? s.status
        switch s.login {
        case .code(let c): c.restart(s, status: status, &t, &turn)
        case .device(let d): d.restart(s, status: status, &t, &turn)
        case .signOut(let o): o.restart(s, status: status, &t, &turn)
        }
        t.effects.append(
            .scheduleDeadline(s.id, at: failed.map { turn.core.deadline(of: $0) } ?? turn.core.deadline(of: copy s)))
        return !status.isFinished
    }
}
