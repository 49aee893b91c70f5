/// SIGTERM without losing what a provider gave once: the daemon stops
/// taking on what would spend a refresh token, writes again every set the
/// keyring has not taken, and stops once nothing a provider gave once is
/// still on its way (`settled`, asked at the end of every loop turn) or at
/// the drain's deadline (`deadline`). A provider that rotates one-use refresh
/// tokens has already spent the old one when its answer is on the way:
/// stopping before it lands would leave the next daemon a dead token.
enum StopDrain {
    static func requested(_ core: Router, now: Int64) -> Transition {
        guard !core.stopWanted else { return Transition() }
        var turn = Turn(core, now: now)
        var t = Transition(core: [.stopWhenSettled], ifWriteFails: .keepInMemory)
        // Sets kept in memory after a failed write get one more try.
        for (key, state) in core.accountTokens.sorted(by: { $0.key.qualifiedName < $1.key.qualifiedName })
        where state.unsaved != nil && state.flight == nil {
            guard let tokens = state.tokens else { continue }
            let flight = TokenFlight(key: key, account: nil, stage: .writing(tokens))
            t = t.then(TokenFlight.start(flight, .write(key, tokens), state: state, &turn))
        }
        let landing = landingCount(core) + t.effects.count { if case .start = $0 { true } else { false } }
        t.effects.append(
            .log(
                LogLine(
                    .notice,
                    landing == 0
                        ? "Stopping"
                        : "Stopping once \(landing) refreshes, exchanges or keyring writes under way have landed")))
        return t
    }

    static func settled(_ core: Router) -> Transition {
        guard core.stopWanted, landingCount(core) == 0 else { return Transition() }
        return Transition(ifWriteFails: .keepInMemory, effects: unsavedWarning(core) + [.stop])
    }

    static func deadline(_ core: Router) -> Transition {
        guard core.stopWanted else { return Transition() }
        var effects = unsavedWarning(core)
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
    static func landingCount(_ core: Router) -> Int { core.running.values.count(where: \.landsSecrets) }

    /// Accounts whose rotated tokens are in memory only, said as the daemon stops (they go with it).
    private static func unsavedWarning(_ core: Router) -> [Effect] {
        let unsaved = core.accountTokens.filter { $0.value.unsaved != nil }.map(\.key.name).sorted()
        guard !unsaved.isEmpty else { return [] }
        return [
            .log(
                LogLine(
                    .warning,
                    "Stopping with the tokens of \(unsaved.joined(separator: ", ")) in memory only (the keyring did not take them); they may need a new sign-in"
                ))
        ]
    }
}

extension Router {
    /// SIGTERM (`StopDrain`).
    public func stopRequested(now: Int64) -> Transition { StopDrain.requested(self, now: now) }

    /// At the end of a loop turn, while a stop waits: stop once nothing spent is on its way.
    public func stopIfSettled() -> Transition { StopDrain.settled(self) }

    /// The drain took too long (a provider or the keyring that does not answer): stop anyway, and say what is lost.
    public func stopDeadline() -> Transition { StopDrain.deadline(self) }

    /// While a SIGTERM's stop waits: how many answers it waits for (0 when no stop was asked for). The
    /// `stop_held_back` counter, so a person or a test sees the drain, and on how much, without reading the log.
    public var stopHeldBack: Int { stopWanted ? StopDrain.landingCount(self) : 0 }
}
