/// A code login's operations: the code exchanged for tokens (`exchange`) once
/// its callback came, and its loopback listener bound again after a restart.
extension CodeLogin: LoginMachine {
    public enum Work: Sendable, Equatable {
        /// The code posted to the token endpoint, and the answer verified.
        case redeem(TokenGrant, code: String, redirectURI: String, verifier: String?)
        /// The loopback listener again after a restart (it is the session's from then on).
        case listen(SessionID, LoopbackBinding, path: String)
    }

    public enum Event: Sendable {
        case redeemed(Result<TokenSet, SessionFailure>)
        /// The port the listener is bound to again, or why not.
        case listening(Result<Int, RouterError>)
    }

    init?(_ login: Login) {
        guard case .code(let c) = login else { return nil }
        self = c
    }

    func handle(_ event: Event, in session: Session, op: OperationID, _ turn: inout Turn) -> Transition {
        switch event {
        case .redeemed(let outcome):
            return Transition(core: [.finish(op)]).then(session.exchanged(outcome, &turn))
        case .listening(let r):
            return turn.core.relistened(session.id, r, op: op, now: turn.now)
        }
    }

    /// The exchange of `session`'s code, from the exchange its login planned.
    func redeem(_ session: Session) -> Work? {
        guard let exchange else { return nil }
        let grant = TokenGrant(
            tokenEndpoint: exchange.tokenEndpoint, jwksURI: exchange.jwksURI,
            expected: IDTokenClaims.Expected(
                issuer: issuer ?? "", clientID: exchange.clientID, nonce: nonce, stepUp: exchange.stepUp),
            requiresIDToken: exchange.expectsIDToken, dpop: exchange.dpop)
        return .redeem(
            grant, code: session.result?.code ?? "", redirectURI: session.result?.redirectURI ?? redirect.string,
            verifier: codeVerifier ?? session.result?.codeVerifier)
    }

    /// After a restart: an exchange under way starts again (its code is stored), and a
    /// loopback login listens again. `status` is the restored session's.
    func restart(_ s: borrowing Session, status: SessionStatus, _ t: inout Transition, _ turn: inout Turn) {
        if status == .exchanging, let work = redeem(copy s) {
            let op = turn.ids.take()
            t.core.append(.track(op, .login(s.id, idle: false)))
            t.effects.append(.start(op, .code(work)))
        }
        if !status.isFinished, redirect.style == .loopback, let binding = redirect.loopbackBinding {
            let op = turn.ids.take()
            t.core.append(.track(op, .login(s.id, idle: false)))
            t.effects.append(.start(op, .code(.listen(s.id, binding, path: redirect.uri.path))))
        }
    }
}
