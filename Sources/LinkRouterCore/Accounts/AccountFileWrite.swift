/// An `AddAccount` or `RemoveAccount`: the account's file written or removed,
/// then the call answered. A removed account is signed out too; so is a
/// replaced one whose provider or client changed (its tokens are not its own any more).
public struct AccountFileWrite: OperationMachine {
    public let change: AccountFileChange
    public let caller: String
    /// The caller's other accounts at an added default's issuer, written again without `default` once it is written,
    /// one after the other (one default per issuer); the call is answered after the last.
    var clearing: [Account] = []
    /// Whether the change itself is written (then each `done` is a cleared default's).
    var wrote = false

    public enum Work: Sendable, Equatable {
        case write(Account)
        case remove(Account)
        case revokeGrant(Account, CallerApp)
    }

    /// The file written or removed (nil), or why not.
    public enum Event: Sendable {
        case done(RouterError?)
    }

    var running: Running { .accountFile(self) }

    init?(_ running: Running) {
        guard case .accountFile(let m) = running else { return nil }
        self = m
    }

    init(change: AccountFileChange, caller: String) {
        self.change = change
        self.caller = caller
    }

    /// The change started; its call is held (`held`, or a new operation).
    static func start(
        _ change: AccountFileChange, clearing: [Account] = [], caller: String, held: OperationID?, _ turn: inout Turn
    ) -> Transition {
        let op = held ?? turn.ids.take()
        let work: Work
        switch change {
        case .add(let account, _): work = .write(account)
        case .remove(let account): work = .remove(account)
        case .revokeGrant(let account, let app): work = .revokeGrant(account, app)
        }
        var machine = AccountFileWrite(change: change, caller: caller)
        machine.clearing = clearing
        var t = Transition(
            core: [.track(op, .accountFile(machine))],
            effects: [.start(op, .accountFile(work))])
        if held == nil { t.reply = .held(op) }
        return t
    }

    mutating func handle(_ event: Event, op: OperationID, _ turn: inout Turn) -> Transition {
        let caller = caller
        switch event {
        case .done(let error?) where wrote:
            // Declared, but an older default could not be written without it.
            let said = RouterError(
                .storageFailed,
                "declared, but another account at its issuer is still marked default (\(error.message)); declare that one again without --default"
            )
            return Transition(core: [.finish(op)], effects: [.answer(op, .refused(said))])
        case .done(let error?):
            return Transition(core: [.finish(op)], effects: [.answer(op, .refused(error))])
        case .done(nil) where wrote:
            return clearingNext(op)
        case .done(nil):
            switch change {
            case .remove(let account):
                let t = Transition(
                    core: [.finish(op)],
                    effects: [
                        .log(LogLine(.info, "Account \(account.name) of \(account.owner.label) removed by \(caller)"))
                    ])
                // The sign-out goes on under the same call, which it answers.
                return t.then(AccountKeeper.logout(account, caller: caller, held: op, &turn))
            case .revokeGrant(let account, let app):
                return Transition(
                    core: [.finish(op)],
                    effects: [
                        .log(LogLine(.info, "\(app.label)'s grant for \(account.name) ended by \(caller)")),
                        .answer(op, .none),
                    ])
            case .add(let account, let old):
                wrote = true
                var t = Transition(
                    effects: [
                        .log(LogLine(.info, "Account \(account.name) of \(account.owner.label) declared by \(caller)"))
                    ])
                if let old, old.issuer != account.issuer || old.clientID != account.clientID {
                    t = t.then(
                        AccountKeeper.forgetting(old, why: "its account now names another provider or client", &turn))
                }
                return t.then(clearingNext(op))
            }
        }
    }

    /// The next cleared default written, or the call answered once none is left.
    private mutating func clearingNext(_ op: OperationID) -> Transition {
        guard !clearing.isEmpty else { return Transition().answering(op, .none) }
        return Transition(effects: [.start(op, .accountFile(.write(clearing.removeFirst())))])
    }
}
