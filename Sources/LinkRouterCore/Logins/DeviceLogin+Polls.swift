/// A device login's polls (RFC 8628 §3.4, §3.5): at the provider's interval,
/// one timer at a time, until tokens or an end. The tokens finish the session
/// as a code login's exchange does (`Router.exchanged`): `Wait` hands them
/// over, an account keeps them.
extension DeviceLogin: LoginMachine {
    public enum Work: Sendable, Equatable {
        /// The interval between polls.
        case wait(milliseconds: UInt32)
        /// One poll at the token endpoint (§3.4), and the answer verified.
        case poll(TokenGrant, deviceCode: String)
    }

    public enum Event: Sendable {
        /// The interval is up.
        case due
        case polled(Result<TokenSet, SessionFailure>)
    }

    init?(_ login: Login) {
        guard case .device(let d) = login else { return nil }
        self = d
    }

    /// The next poll, after the interval: a timer, so a stop now loses nothing (the stored session polls again).
    func waitingToPoll(_ id: SessionID, _ turn: inout Turn) -> Transition {
        let op = turn.ids.take()
        return Transition(
            core: [.track(op, .login(id, idle: true))],
            effects: [.start(op, .device(.wait(milliseconds: interval * 1000)))])
    }

    func handle(_ event: Event, in s: Session, op: OperationID, _ turn: inout Turn) -> Transition {
        switch event {
        case .due:
            guard s.status == .pending, let code = deviceCode else { return Transition(core: [.finish(op)]) }
            let grant = TokenGrant(
                tokenEndpoint: exchange.tokenEndpoint, jwksURI: exchange.jwksURI,
                expected: IDTokenClaims.Expected(
                    issuer: issuer, clientID: exchange.clientID, nonce: nil, stepUp: exchange.stepUp),
                requiresIDToken: false, dpop: exchange.dpop)
            // In flight: a stop now would lose the answer (tokens the provider gives once).
            return Transition(
                core: [.advance(op, .login(s.id, idle: false))],
                effects: [.start(op, .device(.poll(grant, deviceCode: code)))])
        case .polled(let outcome):
            return polled(outcome, in: s, op: op, &turn)
        }
    }

    /// A poll's answer: tokens finish the session; pending waits the interval again,
    /// `slow_down` a longer one for good; anything else ends it (`DeviceGrant.step`).
    private func polled(_ outcome: Result<TokenSet, SessionFailure>, in s: Session, op: OperationID, _ turn: inout Turn)
        -> Transition
    {
        let done = Transition(core: [.finish(op)])
        guard s.status == .pending else { return done }
        let failure: SessionFailure
        switch outcome {
        case .success: return done.then(s.exchanged(outcome, &turn))
        case .failure(let f): failure = f
        }
        switch DeviceGrant.step(after: failure, interval: interval, now: turn.now, deadline: s.expiresAt) {
        case .poll(let next):
            var t = Transition(
                core: [.advance(op, .login(s.id, idle: true))], ifWriteFails: .keepInMemory,
                effects: [.start(op, .device(.wait(milliseconds: next * 1000)))])
            if next != interval {
                var slowed = s
                var d = self
                d.interval = next
                slowed.login = .device(d)
                t.changes = [.update(slowed)]
                t.effects.append(
                    .log(LogLine(.info, "The provider asked \(s.logTag) to slow down: polling every \(next) s now")))
            }
            return t
        case .end(let e):
            let failed = s.finished(
                .failed,
                failure: SessionFailure(code: e.code, providerError: failure.providerError, message: e.message),
                now: turn.now
            ).wiped()
            var t = turn.core.finishing(failed)
            t.ifWriteFails = .keepInMemory
            t.effects.append(.log(LogLine(.notice, "Device grant for \(s.logTag) ended: \(e.message)")))
            return done.then(t)
        }
    }

    /// After a restart, a pending device login polls again, after its interval, as if the last poll had said pending.
    func restart(_ s: borrowing Session, status: SessionStatus, _ t: inout Transition, _ turn: inout Turn) {
        guard !status.isFinished else { return }
        let op = turn.ids.take()
        t.core.append(.track(op, .login(s.id, idle: true)))
        t.effects.append(.start(op, .device(.wait(milliseconds: interval * 1000))))
    }
}
