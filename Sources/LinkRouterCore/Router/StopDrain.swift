/// SIGTERM without losing what a provider gave once: the daemon stops
/// taking on what would spend a refresh token, writes again every set the
/// keyring has not taken, and stops once nothing a provider gave once is
/// still on its way (`settled`, asked at the end of every loop turn) or at
/// the drain's deadline (`deadline`). A provider that rotates one-use refresh
/// tokens has already spent the old one when its answer is on the way:
/// stopping before it lands would leave the next daemon a dead token.
///
/// A set the keyring will not take because it is locked is the person's to
/// save: they are asked to unlock it ("Unlock the keyring to keep NAME signed
/// in"), and the stop waits for that until the deadline. Whatever is still
/// unsaved when the daemon stops is set aside or said lost (`SetAside`).
enum StopDrain {
    static func requested(_ core: Router, now: Int64) -> Transition {
        guard !core.stopWanted else { return Transition() }
        var turn = Turn(core, now: now)
        var t = Transition(core: [.stopWhenSettled], ifWriteFails: .keepInMemory)
        // Sets kept in memory after a failed write get one more try; a locked keyring's person is asked to unlock.
        for (key, state) in core.keepers.sorted(by: { $0.key.qualifiedName < $1.key.qualifiedName })
        where state.unsaved != nil && state.flight == nil {
            guard let tokens = state.tokens else { continue }
            if state.keyringLocked == true {
                t = t.then(AccountNotice.asking(key, .unlockKeyring, why: "it is locked", atStop: true, &turn))
            }
            let current = turn.keepers[key] ?? state
            t = t.then(TokenFlight.writing(tokens, key, account: nil, state: current, &turn))
        }
        let landing = landingCount(core) + t.effects.count { if case .start(_, .flight) = $0 { true } else { false } }
        t.effects.append(
            .log(
                LogLine(
                    .notice,
                    landing == 0
                        ? "Stopping"
                        : "Stopping once \(landing) refreshes, exchanges or keyring writes under way have landed")))
        return t
    }

    /// Nothing is on its way, and no set waits for the person to unlock the keyring: stop, setting aside what the
    /// keyring has not taken (`accounts`: the declarations, which say where).
    static func settled(_ core: Router, accounts: [Account]) -> Transition {
        guard core.stopWanted, landingCount(core) == 0, !waitsForUnlock(core) else { return Transition() }
        return Transition(ifWriteFails: .keepInMemory, effects: SetAside.atStop(core, accounts: accounts) + [.stop])
    }

    static func deadline(_ core: Router, accounts: [Account]) -> Transition {
        guard core.stopWanted else { return Transition() }
        var effects = SetAside.atStop(core, accounts: accounts)
        let landing = landingCount(core)
        if landing > 0 {
            effects.append(
                .log(
                    LogLine(
                        .warning,
                        "Stopping before \(landing) refreshes, exchanges or keyring writes landed: what a provider gave once for them is lost, and their accounts or logins may need a new sign-in"
                    )))
        }
        return Transition(ifWriteFails: .keepInMemory, effects: effects + [.stop])
    }

    /// Answers on their way that carry what a provider gives once (`Running.landsSecrets`).
    static func landingCount(_ core: Router) -> Int { core.running.values.count { $0.landsSecrets(core.keepers) } }

    /// A set the keyring has not taken because it is locked: the person was asked to unlock it, and a
    /// `CollectionChanged` (unlocked) writes it (`Router.keyringChanged`).
    static func waitsForUnlock(_ core: Router) -> Bool {
        core.keepers.values.contains { $0.unsaved != nil && $0.tokens != nil && $0.keyringLocked == true }
    }
}

extension Router {
    /// SIGTERM (`StopDrain`).
    public func stopRequested(now: Int64) -> Transition { StopDrain.requested(self, now: now) }

    /// At the end of a loop turn, while a stop waits: stop once nothing spent is on its way and no set waits for the
    /// keyring to unlock; what it has not taken is set aside as `accounts` say.
    public func stopIfSettled(accounts: [Account] = []) -> Transition { StopDrain.settled(self, accounts: accounts) }

    /// The drain took too long (a provider or the keyring that does not answer): stop anyway, set aside what the
    /// keyring has not taken, and say what is lost.
    public func stopDeadline(accounts: [Account] = []) -> Transition { StopDrain.deadline(self, accounts: accounts) }

    /// While a SIGTERM's stop waits: how many answers it waits for, and 1 more while a set waits for the keyring to
    /// unlock (0 when no stop was asked for). The `stop_held_back` counter, so a person or a test sees the drain, and
    /// on how much, without reading the log.
    public var stopHeldBack: Int {
        stopWanted ? StopDrain.landingCount(self) + (StopDrain.waitsForUnlock(self) ? 1 : 0) : 0
    }
}
