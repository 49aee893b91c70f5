/// A sign-out's one operation: its loopback listener bound again after a restart.
extension ProviderSignOut: LoginMachine {
    public enum Work: Sendable, Equatable {
        case listen(SessionID, LoopbackBinding, path: String)
    }

    public enum Event: Sendable {
        case listening(Result<Int, RouterError>)
    }

    init?(_ login: Login) {
        guard case .signOut(let s) = login else { return nil }
        self = s
    }

    func handle(_ event: Event, in session: Session, op: OperationID, _ turn: inout Turn) -> Transition {
        switch event {
        case .listening(let r): return turn.core.relistened(session.id, r, op: op, now: turn.now)
        }
    }

    /// After a restart, a loopback sign-out still waiting listens again.
    func restart(_ s: borrowing Session, status: SessionStatus, _ t: inout Transition, _ turn: inout Turn) {
        guard !status.isFinished, redirect.style == .loopback, let binding = redirect.loopbackBinding else { return }
        let op = turn.ids.take()
        t.core.append(.track(op, .login(s.id, idle: false)))
        t.effects.append(.start(op, .signOut(.listen(s.id, binding, path: redirect.uri.path))))
    }
}
