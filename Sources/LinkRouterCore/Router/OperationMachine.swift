/// A kind of work that waits: it starts operations (`Effect.start`), and the
/// result of each comes back to it, and only to it, as one of its own
/// `Event`s: the operations it may start (`Operation`'s case for it) each
/// answer with one of them, so a result no machine waits for cannot be
/// written. swift-nio keeps one such small machine per handler.
///
/// While its operation runs, the machine's state is kept under the
/// operation's id (`Router.running`). `Router.completed` finds it there and
/// hands it the event; `handle` changes the machine and says what follows.
/// When the transition finishes the operation (`CoreChange.finish`), the
/// machine is done; otherwise the router keeps its new state.
protocol OperationMachine: Sendable, Equatable {
    associatedtype Event: Sendable
    /// The machine as `Router.running` keeps it.
    var running: Running { get }
    /// This kind of machine, if `running` is one.
    init?(_ running: Running)
    /// One result of one of its operations, `op`.
    mutating func handle(_ event: Event, op: OperationID, _ turn: inout Turn) -> Transition
}

/// A session's login as a machine (`CodeLogin`, `DeviceLogin`,
/// `ProviderSignOut`): its state lives in the session (and so in the store),
/// its operations are tracked as `Running.login(id)`, and their results come
/// back to it with the session they belong to.
protocol LoginMachine: Sendable, Equatable {
    associatedtype Event: Sendable
    /// This kind of login, if `login` is one.
    init?(_ login: Login)
    /// One result of one of its operations, `op`, for `session` (unfinished or not: the login decides).
    func handle(_ event: Event, in session: Session, op: OperationID, _ turn: inout Turn) -> Transition
}

/// One event's work in the core: the core as the event found it, the time,
/// the operation ids it may take (one generator an event: no two operations
/// get one id), and what it has decided of accounts' tokens so far (a later
/// step of the same event sees an earlier one's flight).
struct Turn {
    let core: Router
    let now: Int64
    var ids: OperationIDs
    var keepers: [AccountKey: AccountKeeper]
    /// `core.appFaces`, with those found this turn (an identification carries held calls on at once).
    var appFaces: [CallerApp: AppFace]
    /// Operations this turn has ended so far: `core.running` still has them (the transition is not applied yet), but
    /// nothing decided later in the turn may join them (a call queued behind a consent prompt, decided again as the
    /// prompt ends, asks anew).
    var ended: Set<OperationID> = []

    init(_ core: Router, now: Int64) {
        self.core = core
        self.now = now
        ids = core.newOperationIDs
        keepers = core.keepers
        appFaces = core.appFaces
    }

    var limits: Limits { core.limits }
}

extension Transition {
    /// Whether this transition ends operation `op`.
    func finishes(_ op: OperationID) -> Bool { core.contains(.finish(op)) }
}
