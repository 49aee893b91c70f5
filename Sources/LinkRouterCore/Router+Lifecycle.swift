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
        if callers[name] != nil { t.core.append(.caller(name, nil)) }
        for s in sessions.left(by: name, now: now) {
            t.changes.append(.update(s))
            if s.claimTokenDigest != nil {
                t.effects.append(
                    .log(LogLine(.info, "The owner of \(s.logTag) left the bus; the session is parked for Claim")))
            } else if session(s.id)?.status.isFinished == false {
                // The waits it held are dropped above; any other caller's still hear.
                let f = finishing(s)
                t.effects += f.effects.filter { e in
                    switch e {
                    case .answer(let op, _), .cancel(let op): return !dropped.contains(op)
                    default: return true
                    }
                }
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
        let unsaved = accountTokens.values.count { $0.unsaved != nil }
        if unsaved > 0 { lost.append("\(unsaved) accounts' tokens not yet in the keyring") }
        return lost
    }

    // MARK: Stopping without losing what was spent (SIGTERM)

    /// SIGTERM: the daemon stops taking on what would spend a refresh token,
    /// writes again every set the keyring has not taken, and stops once
    /// nothing a provider gave once is still on its way (`stopIfSettled`,
    /// asked at the end of every loop turn) or at the drain's deadline
    /// (`stopDeadline`). A provider that rotates one-use refresh tokens has
    /// already spent the old one when its answer is on the way: stopping
    /// before it lands would leave the next daemon a dead token.
    public func stopRequested(now: Int64) -> Transition {
        guard !stopWanted else { return Transition() }
        var turn = Turn(self, now: now)
        var t = Transition(core: [.stopWhenSettled], ifWriteFails: .keepInMemory)
        // Sets kept in memory after a failed write get one more try.
        for (key, state) in accountTokens.sorted(by: { $0.key.qualifiedName < $1.key.qualifiedName })
        where state.unsaved != nil && state.flight == nil {
            guard let tokens = state.tokens else { continue }
            let flight = TokenFlight(key: key, account: nil, stage: .writing(tokens))
            t = t.then(TokenFlight.start(flight, .write(key, tokens), state: state, &turn))
        }
        let landing = landingCount + t.effects.count { if case .start = $0 { true } else { false } }
        t.effects.append(
            .log(
                LogLine(
                    .notice,
                    landing == 0
                        ? "Stopping"
                        : "Stopping once \(landing) refreshes, exchanges or keyring writes under way have landed")))
        return t
    }

    /// At the end of a loop turn, while a stop waits: stop once nothing spent is on its way.
    public func stopIfSettled() -> Transition {
        guard stopWanted, landingCount == 0 else { return Transition() }
        return Transition(ifWriteFails: .keepInMemory, effects: unsavedWarning() + [.stop])
    }

    /// The drain took too long (a provider or the keyring that does not
    /// answer): stop anyway, and say what is lost.
    public func stopDeadline() -> Transition {
        guard stopWanted else { return Transition() }
        var effects = unsavedWarning()
        if landingCount > 0 {
            effects.append(
                .log(
                    LogLine(
                        .warning,
                        "Stopping before \(landingCount) refreshes, exchanges or keyring writes landed: what a provider gave once for them is lost, and their accounts or logins may need a new sign-in"
                    )))
        }
        return Transition(ifWriteFails: .keepInMemory, effects: effects + [.stop])
    }

    /// While a SIGTERM's stop waits: how many answers it waits for (0 when no stop was asked for). The
    /// `stop_held_back` counter, so a person or a test sees the drain, and on how much, without reading the log.
    public var stopHeldBack: Int { stopWanted ? landingCount : 0 }

    /// Answers on their way that carry what a provider gives once (`Running.landsSecrets`).
    var landingCount: Int { running.values.count(where: \.landsSecrets) }

    /// Accounts whose rotated tokens are in memory only, said as the daemon stops (they go with it).
    private func unsavedWarning() -> [Effect] {
        let unsaved = accountTokens.filter { $0.value.unsaved != nil }.map(\.key.name).sorted()
        guard !unsaved.isEmpty else { return [] }
        return [
            .log(
                LogLine(
                    .warning,
                    "Stopping with the tokens of \(unsaved.joined(separator: ", ")) in memory only (the keyring did not take them); they may need a new sign-in"
                ))
        ]
    }

    // MARK: Refreshing ahead from the start

    /// The daemon serves: every declared account that keeps its tokens in
    /// the keyring and refreshes ahead is read now (a flight each, which
    /// callers share), so its timer is set without waiting for a first call.
    /// Reading asks nothing of a provider, and a locked keyring only says so.
    public func startingAhead(_ accounts: [Account], now: Int64) -> Transition {
        var turn = Turn(self, now: now)
        var t = Transition(ifWriteFails: .keepInMemory)
        for account in accounts where account.store == .keyring && account.refresh == .ahead {
            let state = turn.accounts[account.key] ?? AccountTokens()
            guard !state.loaded, state.flight == nil else { continue }
            let flight = TokenFlight(key: account.key, account: account, stage: .reading)
            t = t.then(TokenFlight.start(flight, .read(account.key), state: state, &turn))
        }
        return t
    }

    // MARK: The notification server's answers

    /// `ActionInvoked(id, action)` from the notification server: the notice it belongs to (if it is one of ours)
    /// takes the person's answer, with what a sign-in needs (gathered by the daemon before it asks).
    public func noticeInvoked(
        _ id: UInt32, action: String, inputs: BeginInputs, accounts: [Account], now: Int64
    ) -> Transition {
        guard let op = notice(shown: id) else { return Transition() }
        return completed(op, .signInNotice(.invoked(action: action, inputs: inputs, accounts: accounts)), now: now)
    }

    /// `NotificationClosed(id, reason)`: the notice it belongs to is over.
    public func noticeClosed(_ id: UInt32, reason: UInt32, now: Int64) -> Transition {
        guard let op = notice(shown: id) else { return Transition() }
        return completed(op, .signInNotice(.closed(reason: reason)), now: now)
    }

    /// Whether the notification server's `id` is one of the daemon's notices.
    public func isNotice(_ id: UInt32) -> Bool { notice(shown: id) != nil }

    /// The notice the server knows as `id`.
    private func notice(shown id: UInt32) -> OperationID? {
        running.first { _, m in if case .signInNotice(let n) = m { n.shown == id } else { false } }?.key
    }
}
