/// Everything one event does: the sessions it changes, the effects the
/// daemon must carry out, and what the caller hears. The core computes it
/// without touching anything; the daemon's executor carries it out
/// (swift-nio's state machines return such an action; so do swift-service-lifecycle's).
///
/// The executor's order, the one place it is written down (docs/architecture.md):
/// 1. write `changes` to the store (one transaction);
/// 2. take them into the router;
/// 3. carry out `effects` by `Effect.rank`: fallible ones first (a browser,
///    a signal), then parked waits, listeners, waiters, status signals,
///    deadlines, the checkpoint, the log;
/// 4. answer the caller with `reply`.
/// When step 1 fails, `ifWriteFails` says what happens. When a fallible
/// effect fails, the changes are undone (the previous copies written back and
/// taken in), no later effect runs, and the caller hears the failure.
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

    /// What the caller of the event hears.
    public enum Reply: Sendable, Equatable {
        case none
        /// `Route`'s outcome word.
        case routed(RouteOutcome)
        /// `BeginSession`'s answer.
        case begun(SessionID, authorizeURL: String)
        /// `Wait` answered at once.
        case waited(Result<AuthorizationResult, RouterError>)
        /// Refused; nothing changed.
        case refused(RouterError)
        /// The executor answers later (an app's `Open` is under way).
        case deferred
    }

    public var changes: [SessionChange]
    public var ifWriteFails: WriteFailure
    public var effects: [Effect]
    public var reply: Reply

    public init(changes: [SessionChange] = [], ifWriteFails: WriteFailure = .refuse, effects: [Effect] = [], reply: Reply = .none) {
        self.changes = changes
        self.ifWriteFails = ifWriteFails
        self.effects = effects
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
        case .insert(let s), .update(let s): return s
        case .remove: return nil
        }
    }
}
