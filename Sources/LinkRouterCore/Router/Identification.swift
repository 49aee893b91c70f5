/// Finding out the app behind a connection (`GetConnectionCredentials`,
/// then the process), the first time it owns a session or asks about
/// accounts. The answer is shown on its sessions and decides which accounts
/// it sees: its account calls held meanwhile go on, each seeing those its app may.
public struct Identification: OperationMachine {
    public let name: String

    public enum Work: Sendable, Equatable {
        case identify(name: String)
    }

    public enum Event: Sendable {
        /// The app, and for a sandboxed one the desktop entry its sandbox exported, if any.
        case identified(CallerApp, face: AppFace? = nil)
    }

    var running: Running { .identification(self) }

    init?(_ running: Running) {
        guard case .identification(let m) = running else { return nil }
        self = m
    }

    init(name: String) { self.name = name }

    /// Finding out the app behind `name`, unless it is known or being found out.
    static func start(_ name: String, _ turn: inout Turn) -> Transition {
        // "": the daemon itself, on the person's behalf (a sign-in from a notification): nobody to find out.
        guard !name.isEmpty, turn.core.callers[name] == nil else { return Transition() }
        let op = turn.ids.take()
        return Transition(
            core: [.caller(name, .unknown), .track(op, .identification(Identification(name: name)))],
            effects: [.start(op, .identification(.identify(name: name)))])
    }

    mutating func handle(_ event: Event, op: OperationID, _ turn: inout Turn) -> Transition {
        switch event {
        case .identified(let app, let face):
            let name = name
            // The name left the bus meanwhile: nothing is recorded for it.
            guard turn.core.callers[name] != nil else { return Transition(core: [.finish(op)]) }
            var t = Transition(core: [.finish(op), .caller(name, app)], ifWriteFails: .keepInMemory)
            if let face, app.isSandboxed {
                turn.appFaces[app] = face
                t.core.append(.appFace(app, face))
            }
            for (held, call) in turn.core.held.calls.sorted(by: { $0.key < $1.key }) {
                guard case .account(let c, let accounts, let caller) = call, caller == name else { continue }
                if app == .unknown {
                    t = t.then(Transition(core: [.finish(held)], effects: [.answer(held, c.refusal)]))
                } else {
                    // The call goes on under the same operation, as whatever it now waits for (or is answered).
                    t.core.append(.finish(held))
                    t = t.then(c.carryOn(accounts: accounts, app: app, caller: caller, held: held, &turn))
                }
            }
            for i in turn.core.sessions.indices where turn.core.sessions[i].ownerName == name {
                var updated = turn.core.sessions[i]
                guard updated.owner?.app != app else { continue }
                updated.owner = Caller(name: name, app: app)
                t.changes.append(.update(updated))
            }
            if app != .host && app != .unknown { t.effects.append(.log(LogLine(.info, "\(name) is \(app.label)"))) }
            return t
        }
    }
}

extension Router {
    /// A caller found out before its first call, from what the daemon knows of it already (an agent connection's
    /// peer, taken at accept: no bus to ask), recorded as `Identification` records one; nothing is held for it yet.
    public func callerIdentified(_ name: String, as app: CallerApp, face: AppFace?) -> Transition {
        guard !name.isEmpty, callers[name] == nil else { return Transition() }
        var t = Transition(core: [.caller(name, app)], ifWriteFails: .keepInMemory)
        if let face, app.isSandboxed { t.core.append(.appFace(app, face)) }
        if app != .host && app != .unknown { t.effects.append(.log(LogLine(.info, "\(name) is \(app.label)"))) }
        return t
    }
}
