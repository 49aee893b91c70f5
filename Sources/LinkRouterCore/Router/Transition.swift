/// Everything one event does: the sessions it changes, what the core starts
/// or stops tracking, the effects the daemon must carry out, and what the
/// caller hears. The core computes it without touching anything; the
/// daemon's executor carries it out (swift-nio's state machines return such
/// an action; so do swift-service-lifecycle's).
///
/// The executor's order, the one place it is written down (docs/architecture.md
/// links here, `ExecutorOrderTests` checks it):
/// 1. **write** `changes` to the store, in one transaction. If that fails,
///    `ifWriteFails` says what happens: `.refuse` stops here, `compensation`
///    runs, and the caller (and every call the transition answers) hears
///    `StorageFailed`; `.keepInMemory` logs the failure and goes on;
/// 2. **take in** the session changes (`Router.apply`);
/// 3. **fallible effects** (`Effect.undoesOnFailure`: a browser, a signal to
///    the owner). If one fails, the session changes are undone (the previous
///    copies written back and taken in), `compensation` runs, the caller and
///    every answered call hear the failure, nothing later runs, and the core
///    hears of it as an event (`Router.effectFailed`), which may decide more;
/// 4. **take in** the core changes (operations tracked and finished, callers);
/// 5. every other effect, by `Effect.rank`: operations started and
///    cancelled, listeners closed, held calls answered, status signals,
///    deadlines, the WAL checkpoint, notifications, the log;
/// 6. **reply** to the caller with `reply` (`.held` keeps the call for later).
/// Operations complete later, on the loop, as events of their own; none
/// completes inside the transition that started it.
public struct Transition: Sendable, Equatable {
    /// What a failed write means for the event.
    public enum WriteFailure: Sendable, Equatable {
        /// Nothing happens and the caller hears `StorageFailed`: the session stays as it was.
        case refuse
        /// No caller to tell (a timer, a client that left): the change is
        /// taken in anyway and logged; the store catches up at the next write
        /// or, after a restart, the old row is corrected again.
        case keepInMemory
    }

    /// What a caller hears: the one that caused the event (`reply`), or one
    /// whose call was held (`Effect.answer`).
    public enum Reply: Sendable, Equatable {
        case none
        /// `Route`'s outcome word.
        case routed(RouteOutcome)
        /// `BeginSession`'s answer.
        case begun(SessionID, authorizeURL: String)
        /// `BeginDeviceLogin`'s answer: the session, and what the person is shown (its codes and deadline).
        case deviceBegun(SessionID, DeviceLogin, expiresAt: Int64)
        /// `Wait`'s answer: the result, or why there is none.
        case waited(Result<AuthorizationResult, RouterError>)
        /// `Login`'s answer: the session and its result, or why there is none.
        case loggedIn(SessionID, Result<AuthorizationResult, RouterError>)
        /// `RefreshTokens`' answer.
        case tokens(TokenSet)
        /// `GetToken`'s answer.
        case token(TokenAnswer)
        /// `SignProof`'s answer: the proof the daemon signs as it answers (the core holds no crypto).
        case proof(ProofPlan)
        /// `ListAccounts`' answer.
        case accounts([AccountSummary])
        /// `Logout`'s answer: what the provider did of the sign-out.
        case signedOut(SignOutOutcome)
        /// `ForwardAgent`'s answer: the path of the forward's socket.
        case forwarding(String)
        /// Refused; nothing changed.
        case refused(RouterError)
        /// The call is held under this operation and answered when it completes.
        case held(OperationID)
    }

    public var changes: [SessionChange]
    public var core: [CoreChange]
    public var ifWriteFails: WriteFailure
    public var effects: [Effect]
    /// What undoes the effects done before this transition when it cannot go on
    /// (a write refused, a fallible effect failed): a listener bound for a session
    /// that will not exist, say.
    public var compensation: [Effect]
    public var reply: Reply

    public init(
        changes: [SessionChange] = [], core: [CoreChange] = [], ifWriteFails: WriteFailure = .refuse,
        effects: [Effect] = [],
        compensation: [Effect] = [], reply: Reply = .none
    ) {
        self.changes = changes
        self.core = core
        self.ifWriteFails = ifWriteFails
        self.effects = effects
        self.compensation = compensation
        self.reply = reply
    }

    /// A refusal: the log line says why, the caller hears the error, nothing changes.
    public static func refused(_ error: RouterError, log: LogLine? = nil) -> Transition {
        Transition(effects: log.map { [.log($0)] } ?? [], reply: .refused(error))
    }

    /// The one changed session, when there is exactly one.
    public var session: Session? {
        guard changes.count == 1 else { return nil }
        switch changes[0] {
        case .insert(let s), .update(let s), .restore(let s), .handedOff(let s): return s
        case .remove: return nil
        }
    }

    /// The operations this transition answers (their held calls hear `Effect.answer`).
    public var answered: [OperationID] {
        effects.compactMap { if case .answer(let id, _) = $0 { id } else { nil } }
    }

    /// This transition followed by `next`'s changes and effects (the reply is `next`'s unless it has none).
    public func then(_ next: Transition) -> Transition {
        var t = self
        t.changes += next.changes
        t.core += next.core
        t.effects += next.effects
        t.compensation += next.compensation
        if next.reply != .none { t.reply = next.reply }
        if next.ifWriteFails == .refuse { t.ifWriteFails = .refuse }
        return t
    }
}
