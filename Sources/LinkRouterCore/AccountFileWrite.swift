/// An `AddAccount` or `RemoveAccount`: the account's file written or removed,
/// then the call answered. A removed account is signed out too; so is a
/// replaced one whose provider or client changed (its tokens are not its own any more).
public struct AccountFileWrite: OperationMachine {
    public let change: AccountFileChange
    public let caller: String

    public enum Work: Sendable, Equatable {
        case write(Account)
        case remove(Account)
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
    static func start(_ change: AccountFileChange, caller: String, held: OperationID?, _ turn: inout Turn) -> Transition
    {
        let op = held ?? turn.ids.take()
        let work: Work
        switch change {
        case .add(let account, _): work = .write(account)
        case .remove(let account): work = .remove(account)
        }
        var t = Transition(
            core: [.track(op, .accountFile(AccountFileWrite(change: change, caller: caller)))],
            effects: [.start(op, .accountFile(work))])
        if held == nil { t.reply = .held(op) }
        return t
    }

    mutating func handle(_ event: Event, op: OperationID, _ turn: inout Turn) -> Transition {
        let caller = caller
        switch event {
        case .done(let error?):
            return Transition(core: [.finish(op)], effects: [.answer(op, .refused(error))])
        case .done(nil):
            switch change {
            case .remove(let account):
                let t = Transition(
                    core: [.finish(op)],
                    effects: [
                        .log(LogLine(.info, "Account \(account.name) of \(account.owner.label) removed by \(caller)"))
                    ])
                // The sign-out goes on under the same call, which it answers.
                return t.then(AccountBook.logout(account, caller: caller, held: op, &turn))
            case .add(let account, let old):
                var t = Transition(
                    effects: [
                        .log(LogLine(.info, "Account \(account.name) of \(account.owner.label) declared by \(caller)"))
                    ])
                if let old, old.issuer != account.issuer || old.clientID != account.clientID {
                    t = t.then(
                        AccountBook.forgetting(old, why: "its account now names another provider or client", &turn))
                }
                return t.answering(op, .none)
            }
        }
    }
}
