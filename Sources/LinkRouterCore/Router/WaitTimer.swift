/// The timer of a held `Wait`: if it fires before the session finishes, the
/// `Wait` hears `Timeout` and the session goes on, to be waited for again.
public struct WaitTimer: OperationMachine {
    /// The `Wait` it ends.
    public let wait: OperationID
    public let milliseconds: UInt32

    public enum Work: Sendable, Equatable {
        case timer(milliseconds: UInt32)
    }

    public enum Event: Sendable {
        case fired
    }

    var running: Running { .waitTimer(self) }

    init?(_ running: Running) {
        guard case .waitTimer(let m) = running else { return nil }
        self = m
    }

    init(wait: OperationID, milliseconds: UInt32) {
        self.wait = wait
        self.milliseconds = milliseconds
    }

    mutating func handle(_ event: Event, op: OperationID, _ turn: inout Turn) -> Transition {
        switch event {
        case .fired:
            guard case .wait(let id, _, let login, _)? = turn.core.held[wait] else {
                return Transition(core: [.finish(op)])
            }
            let status = turn.core.session(id)?.status.rawValue ?? "gone"
            let e = RouterError(
                .timeout,
                "no callback arrived within \(milliseconds) ms; the session is still \(status) and can be waited for again"
            )
            return Transition(
                core: [.finish(op), .finish(wait)],
                effects: [.answer(wait, login ? .loggedIn(id, .failure(e)) : .refused(e))])
        }
    }
}
