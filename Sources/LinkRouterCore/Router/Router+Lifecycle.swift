/// The events no app asks for: a client leaving the bus, the daemon starting
/// over its store, stopping, and being replaced. Nobody waits for their
/// reply, so a failed write is logged and the change kept in memory (`.keepInMemory`).
extension Router {
    /// The owner's connection left the bus (threat model D2): its held calls
    /// are dropped, and what it asked for goes on for nobody where stopping it
    /// halfway would lose something (`Running.forNobody`); a session with a
    /// claim token is parked for its owner to claim again; any other is
    /// cancelled, and a result it held is wiped.
    public func ownerGone(_ name: String, now: Int64) -> Transition {
        var t = Transition(ifWriteFails: .keepInMemory)
        var dropped: Set<OperationID> = []
        for (op, machine) in running.sorted(by: { $0.key < $1.key }) where machine.caller == name {
            t.effects.append(.forget(op))
            if let goesOn = machine.forNobody(name) {
                t.core.append(.advance(op, goesOn))
                continue
            }
            t.core.append(.finish(op))
            dropped.insert(op)
            if case .begin(let b) = machine {
                // A loopback listener may already be bound for the session that will not be.
                if case .success(let secrets) = b.inputs.secrets { t.effects.append(.closeListener(secrets.id)) }
                t.effects.append(
                    .log(LogLine(.info, "\(name) left the bus while its \(b.method) waited; nothing was begun")))
            }
        }
        for (op, call) in held.calls.sorted(by: { $0.key < $1.key }) where call.caller == name {
            t.effects.append(.forget(op))
            t.core.append(.finish(op))
            dropped.insert(op)
            if case .wait(_, _, _, let timer?) = call {
                t.effects.append(.cancel(timer))
                t.core.append(.finish(timer))
                dropped.insert(timer)
            }
        }
        // A prompt whose every waiting call is gone asks nobody anything: withdrawn, its timer stopped, nothing kept.
        for (op, machine) in running.sorted(by: { $0.key < $1.key }) {
            guard case .consent(let p) = machine, p.calls.allSatisfy({ dropped.contains($0) || held[$0] == nil })
            else { continue }
            t.core.append(.finish(op))
            t.effects.append(.cancel(op))
            if let shown = p.shown { t.effects.append(.closeNotification(shown)) }
        }
        if callers[name] != nil { t.core.append(.caller(name, nil)) }
        // Only the person's own programs make forwards of the agent (`AgentForward`); theirs end with them.
        if callers[name] == .host { t.effects.append(.closeForwards(owner: name)) }
        for s in sessions.left(by: name, now: now) {
            t.changes.append(.update(s))
            if s.claimTokenDigest != nil {
                t.effects.append(
                    .log(LogLine(.info, "The owner of \(s.logTag) left the bus; the session is parked for Claim")))
            } else if session(s.id)?.status.isFinished == false {
                // The waits it held are dropped above; any other caller's still hear.
                let f = finishing(s)
                t.effects += f.effects.filter { e in e.ends.map { !dropped.contains($0) } ?? true }
                t.core += f.core.filter { if case .finish(let op) = $0 { !dropped.contains(op) } else { true } }
                t.effects.append(
                    .log(LogLine(.info, "The owner of \(s.logTag) left the bus; the session is cancelled")))
            }
        }
        if !t.changes.isEmpty { t.effects.append(.checkpoint) }
        return t
    }

    /// Start-up: the rows of the store come back, expired first when the wall
    /// clock cannot be right (threat model P5); then the daemon asks the bus
    /// who is still on it (`Restore`), and `restored` settles the owners
    /// that left, the listeners and the deadlines.
    public func restore(_ stored: [Session], previousBusID: String?, now: Int64) -> Transition {
        var t = Transition(ifWriteFails: .keepInMemory)
        t.changes.reserveCapacity(stored.count)
        for var s in stored {
            if !s.status.isFinished && (s.createdAt > now + 300 || s.expiresAt - s.createdAt > Int64(limits.maxTTL)) {
                s = Session.expiredForClock(s, now: now)
            }
            t.changes.append(.restore(s))
        }
        var ids = newOperationIDs
        let op = ids.take()
        t.core = [.track(op, .restore(Restore(previousBusID: previousBusID)))]
        t.effects = [.start(op, .restore(.busNames))]
        return t
    }

    /// The daemon is stopping: every held call hears why (a `Wait` that it may
    /// wait again once the daemon is back), and nothing else changes.
    public func stopping() -> Transition {
        var t = Transition(ifWriteFails: .keepInMemory)
        let stopped = RouterError(.internalError, "linkrouterd is stopping; try again once it is back")
        var answering: [(OperationID, RouterError)] = running.compactMap { op, m in
            m.caller == nil ? nil : (op, stopped)
        }
        for (op, call) in held.calls {
            if case .wait = call {
                answering.append(
                    (
                        op,
                        RouterError(
                            .timeout,
                            "linkrouterd is stopping; the session is kept and can be waited for again once it is back")
                    ))
            } else {
                answering.append((op, stopped))
            }
        }
        for (op, e) in answering.sorted(by: { $0.0 < $1.0 }) {
            t.effects.append(.answer(op, .refused(e)))
            t.core.append(.finish(op))
        }
        // No notification outlives the daemon that acts on its click (a click on a dead daemon's notice would be
        // lost): a prompt's question is over (its calls are answered above); an account's notice goes too, and an
        // account that still needs a sign-in is carried to the next daemon, which asks again (`AccountNotice`).
        var carried: [AccountKey] = []
        for (_, m) in running.sorted(by: { $0.key < $1.key }) {
            if case .consent(let p) = m, let shown = p.shown { t.effects.append(.closeNotification(shown)) }
            if case .account(let key, .notice) = m, let n = keepers[key]?.notice {
                if let shown = n.shown { t.effects.append(.closeNotification(shown)) }
                if n.purpose == .signIn { carried.append(n.key) }
            }
        }
        if !carried.isEmpty { t.effects.append(.carrySignIns(carried)) }
        return t
    }

    /// The daemon's executable was replaced on disk (a package upgraded it):
    /// restart on the new one as soon as stopping loses nothing
    /// (`restartIfIdle`, asked at the end of every loop turn, so nothing the
    /// rest of this turn starts is cut short).
    public func executableReplaced(_ path: String) -> Transition {
        guard !restartWanted else { return Transition() }
        var t = Transition(ifWriteFails: .keepInMemory)
        t.core = [.restartWhenIdle]
        let lost = whatStoppingLoses()
        let when = lost.isEmpty ? "" : " once nothing is lost by it (now: \(lost.joined(separator: ", ")))"
        t.effects = [.log(LogLine(.notice, "\(path) was replaced; restarting on the new executable\(when)"))]
        return t
    }

    /// While the executable was replaced: how many kinds of work a stop now would cut short
    /// (0 when it was not replaced). The `restart_held_back` counter, so a person or a
    /// test sees an upgrade waiting, and on what, without reading the log.
    public var restartHeldBack: Int { restartWanted ? whatStoppingLoses().count : 0 }

    /// At the end of a loop turn, while a restart waits: restart once stopping loses nothing.
    public func restartIfIdle() -> Transition {
        guard restartWanted, whatStoppingLoses().isEmpty else { return Transition() }
        var t = Transition(ifWriteFails: .keepInMemory)
        t.effects = [.restart]
        return t
    }

    /// What a stop now would lose, one phrase each: operations under way
    /// (`Running.survivesStop`) and held calls (`HeldCall.survivesStop`) but held
    /// `Wait`s and timers, logins whose tokens their owner has not collected (the
    /// store never has tokens), and account tokens the keyring has not taken
    /// yet. `store=memory` accounts are not counted: their tokens last the
    /// daemon's life, whatever ends it.
    public func whatStoppingLoses() -> [String] {
        var lost: [String] = []
        let busy = running.values.count { !$0.survivesStop } + held.calls.values.count { !$0.survivesStop }
        if busy > 0 { lost.append("\(busy) operations under way") }
        let uncollected = all.count { $0.login.exchange != nil && $0.holdsResult }
        if uncollected > 0 { lost.append("\(uncollected) logins' tokens not yet collected") }
        let unsaved = keepers.values.count { $0.unsaved != nil }
        if unsaved > 0 { lost.append("\(unsaved) accounts' tokens not yet in the keyring") }
        return lost
    }

    /// The Secret Service says a collection changed (`CollectionChanged`: locked, unlocked, an item written):
    /// every account whose tokens live there (it has answered about them before) is asked again, by its one
    /// flight: a set kept in memory is written (the write that failed while it was locked), any other account's
    /// item is read, which says whether the keyring is locked now. An account kept in memory only is never read.
    public func keyringChanged(now: Int64) -> Transition {
        var turn = Turn(self, now: now)
        var t = Transition(ifWriteFails: .keepInMemory)
        for (key, state) in keepers.sorted(by: { $0.key.qualifiedName < $1.key.qualifiedName })
        where state.flight == nil && state.keyringLocked != nil {
            if state.unsaved != nil, let tokens = state.tokens {
                t = t.then(TokenFlight.writing(tokens, key, account: nil, state: state, &turn))
            } else {
                t = t.then(TokenFlight.reading(key, account: nil, state: state, &turn))
            }
        }
        return t
    }
}
