/// The core: the table of sessions, the work under way, and every rule that
/// decides what an event does. Pure: no clock, no randomness, no I/O. Each
/// event (a link, a method call, an operation's result, a deadline, a client
/// leaving the bus, a restart) returns a `Transition`; the daemon persists and
/// carries it out, and only then takes its changes in (`apply`).
///
/// Work that waits is a machine of its own (`OperationMachine`,
/// `LoginMachine`); the router keeps each under its operation's id
/// (`running`) and hands it the results of that operation only
/// (`completed`). Calls held on a machine's progress are `held`.
public struct Router: Sendable {
    public let limits: Limits
    /// The sessions and their indexes.
    public private(set) var sessions = SessionTable()
    /// The operations under way, and the machine each one's result goes to.
    public private(set) var running: [OperationID: Running] = [:]
    /// Calls held until a machine's progress answers them.
    private(set) var held = HeldCalls()
    /// The app behind each bus name found out so far (until the name leaves).
    public private(set) var callers: [String: CallerApp] = [:]
    /// Sandboxed apps as the person knows them, from the desktop entries their sandboxes exported (found when a
    /// connection of theirs was identified): the name and icon a consent prompt shows beside the verified id.
    public private(set) var appFaces: [CallerApp: AppFace] = [:]
    /// Each account as the daemon keeps it: its tokens (memory: a cache of the keyring) and its work's state.
    public private(set) var keepers: [AccountKey: AccountKeeper] = [:]
    /// The next operation's number (operation ids are never reused in a daemon's life).
    private var nextOperation: UInt64 = 1
    /// The daemon's executable was replaced (an upgrade): it stops, to be
    /// started again on the new one, once stopping cuts no work short.
    public private(set) var restartWanted = false
    /// The daemon was asked to stop (SIGTERM): it stops once nothing a provider gave once is still on its way
    /// (`stopIfSettled`), or at the drain's deadline.
    public private(set) var stopWanted = false

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Operation ids for one event, from the next free one.
    var newOperationIDs: OperationIDs { OperationIDs(from: nextOperation) }

    // MARK: Taking in

    /// Takes in what a transition changed of the sessions (after the executor wrote it).
    public mutating func apply(_ changes: [SessionChange]) { sessions.apply(changes) }

    /// Takes in what a transition changed of the core's own tables. An operation's id
    /// is never given to a second machine while the first waits on it.
    public mutating func apply(core changes: [CoreChange]) {
        for change in changes {
            switch change {
            case .track(let op, let machine):
                assert(
                    running[op] == nil, "\(op) tracked for a \(machine.kind) while a \(running[op]!.kind) waits on it")
                running[op] = machine
                nextOperation = max(nextOperation, op.value + 1)
            case .advance(let op, let machine):
                assert(
                    running[op]?.isSameKind(as: machine) == true,
                    "\(op) advanced to a \(machine.kind) while \(running[op]?.kind ?? "nothing") waits on it")
                running[op] = machine
            case .hold(let op, let call):
                assert(held[op] == nil, "\(op) holds a second call")
                held.hold(op, call, app: callers[call.caller])
                nextOperation = max(nextOperation, op.value + 1)
            case .finish(let op):
                // An account's work ends with its operation: a keeper never holds work nobody tracks.
                if case .account(let key, let work)? = running[op] { keepers[key]?.end(work, op) }
                running[op] = nil
                held.release(op)
            case .caller(let name, let app):
                callers[name] = app
            case .appFace(let app, let face):
                appFaces[app] = face
            case .account(let key, let state):
                keepers[key] = state
            case .restartWhenIdle:
                restartWanted = true
            case .stopWhenSettled:
                stopWanted = true
            }
        }
    }

    /// Gives back the room of sessions and operations that are gone (the soak, issue 13 §5).
    public mutating func compact() {
        sessions.compact()
        running = running.compacted()
        held.compact()
    }

    // MARK: Results

    /// The one event for everything the daemon waited on: operation `op`'s
    /// result, handed to the machine that started it. A result whose machine
    /// is gone (its caller left, its session ended) does nothing, but for a
    /// notification shown meanwhile, which goes: nobody will act on it.
    public func completed(_ op: OperationID, _ completion: Completion, now: Int64) -> Transition {
        guard running[op] != nil else {
            switch completion {
            case .consent(.shown(.success(let shown))):
                return Transition(effects: [.closeNotification(shown.notification)])
            case .accountNotice(.shown(.success(let shown))):
                return Transition(effects: [.closeNotification(shown)])
            case .begin, .code, .device, .signOut, .delivery, .flight, .forgetting, .revoking, .identification,
                .refresh, .restore,
                .logout, .accountFile, .registration, .deregistration, .resourceLookup, .waitTimer, .backgroundRefresh,
                .accountNotice, .consent:
                return Transition()
            }
        }
        var turn = Turn(self, now: now)
        var t: Transition
        switch completion {
        case .begin(let e): t = step(Begin.self, op, e, &turn)
        case .code(let e): t = step(CodeLogin.self, op, e, &turn)
        case .device(let e): t = step(DeviceLogin.self, op, e, &turn)
        case .signOut(let e): t = step(ProviderSignOut.self, op, e, &turn)
        case .delivery(let e): t = step(Delivery.self, op, e, &turn)
        case .flight(let e): t = step(TokenFlight.self, op, e, &turn)
        case .forgetting:
            // A sign-in that ended: nothing waits on the keyring forgetting it, whatever it answered. An answer of
            // this kind for any other work under `op` does nothing, as for every other machine.
            guard case .account(_, .forgetting)? = running[op] else { return Transition() }
            t = Transition(core: [.finish(op)])
        case .revoking(let e): t = step(Revoking.self, op, e, &turn)
        case .identification(let e): t = step(Identification.self, op, e, &turn)
        case .refresh(let e): t = step(RefreshCall.self, op, e, &turn)
        case .restore(let e): t = step(Restore.self, op, e, &turn)
        case .logout(let e): t = step(LogoutCall.self, op, e, &turn)
        case .accountFile(let e): t = step(AccountFileWrite.self, op, e, &turn)
        case .registration(let e): t = step(ClientRegistration.self, op, e, &turn)
        case .deregistration(let e): t = step(ClientDeregistration.self, op, e, &turn)
        case .resourceLookup(let e): t = step(ResourceLookup.self, op, e, &turn)
        case .waitTimer(let e): t = step(WaitTimer.self, op, e, &turn)
        case .backgroundRefresh(let e): t = step(BackgroundRefresh.self, op, e, &turn)
        case .accountNotice(let e): t = step(AccountNotice.self, op, e, &turn)
        case .consent(let e): t = step(ConsentPrompt.self, op, e, &turn)
        }
        // Only a held begin has someone to hear StorageFailed (its session is
        // then not begun); every other result is taken in and logged.
        if case .begin = completion {} else { t.ifWriteFails = .keepInMemory }
        return t
    }

    /// `op`'s machine takes `event`; unless the transition finishes `op` (or
    /// hands it to another machine), the machine's next state stays under it.
    private func step<M: OperationMachine>(_: M.Type, _ op: OperationID, _ event: M.Event, _ turn: inout Turn)
        -> Transition
    {
        guard let found = running[op], var machine = M(found) else { return Transition() }
        var t = machine.handle(event, op: op, &turn)
        // Done (finished), or handed on (tracked anew by the machine itself).
        let settled = t.core.contains { change in
            if case .finish(op) = change { return true }
            if case .track(op, _) = change { return true }
            if case .advance(op, _) = change { return true }
            return false
        }
        // Its next state stays under `op`, when it has a new one.
        if !settled, machine.running != found { t.core.append(.advance(op, machine.running)) }
        return t
    }

    /// `op`'s account work takes `event` from the account's keeper, which takes the part's next state (unless the
    /// transition ends it). A result for work the keeper no longer holds (a sign-in superseded a flight, a new set
    /// moved the timer) ends nothing else.
    private func step<P: AccountPart>(_: P.Type, _ op: OperationID, _ event: P.Event, _ turn: inout Turn)
        -> Transition
    {
        guard case .account(let key, P.work)? = running[op] else { return Transition() }
        guard var part = turn.keepers[key]?[keyPath: P.slot], part.op == op else {
            return Transition(core: [.finish(op)])
        }
        var t = part.handle(event, &turn)
        if !t.finishes(op), var keeper = turn.keepers[key], let held = keeper[keyPath: P.slot], held.op == op,
            held != part
        {
            keeper[keyPath: P.slot] = part
            t.core.append(turn.set(key, keeper))
        }
        return t
    }

    /// `op`'s session's login takes `event`, if the session is still there and of that kind.
    private func step<M: LoginMachine>(_: M.Type, _ op: OperationID, _ event: M.Event, _ turn: inout Turn) -> Transition
    {
        guard case .login(let id, _)? = running[op] else { return Transition() }
        guard let s = sessions.session(id), let login = M(s.login) else { return Transition(core: [.finish(op)]) }
        return login.handle(event, in: s, op: op, &turn)
    }

    // MARK: The table

    public func session(_ id: SessionID) -> Session? { sessions.session(id) }

    /// Every session, in no particular order.
    public var all: [Session] { sessions.all }

    public var count: Int { sessions.count }

    public var pendingCount: Int { sessions.pendingCount }

    /// The https callbacks unfinished sessions wait on, and a counter that moves when they change.
    public var claimedCallbacks: ClaimedCallbacks { sessions.claimedCallbacks }
    public var claimedVersion: Int { sessions.claimedVersion }

    /// Whether `op` holds a `Wait` (which a failed write leaves waiting).
    public func holdsWait(_ op: OperationID) -> Bool {
        if case .wait? = held[op] { return true }
        return false
    }

    /// Whether anything waits under `op`: a machine, or a held call.
    public func isLive(_ op: OperationID) -> Bool { running[op] != nil || held[op] != nil }
}
