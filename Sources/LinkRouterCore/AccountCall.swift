/// A call about accounts, decided once its caller's app is known: the host
/// user's programs see the user's and the administrator's accounts, a
/// sandboxed app only those it declared itself (`Account.Owner.serves`), so
/// a name is resolved only then. One held until the caller is identified is
/// `PendingOperation.accountCall`, carried on by `Router.carryOn`.
public enum AccountCall: Sendable, Equatable {
    case getToken(String, TokenRequest)
    case list
    /// A `BeginSession`/`Login` whose request names an `account`.
    case begin(PendingBegin)
    case logout(String)
    case reject(String, token: String)
    /// `AddAccount(name, options)`: declared, or replaced, for the caller.
    case add(String, AccountRequest)
    /// `RemoveAccount(name)`: the caller's declaration and its tokens gone.
    case remove(String)
}

/// What `AddAccount`/`RemoveAccount` do to the declared accounts, held in
/// `PendingOperation.accountFile` until the file is written or gone.
public enum AccountFileChange: Sendable, Equatable {
    case add(Account, replacing: Account?)
    case remove(Account)
}

/// What the core does with an account call, from what it knows of the caller.
enum CallerGate {
    /// Identified: the host user's programs, or a sandboxed app.
    case known(CallerApp)
    /// A caller whose app could not be found out: it has no accounts (never taken for the host).
    case refuse
    /// Not identified yet: the call waits; `identify` when no identification is under way.
    case wait(identify: Bool)
}

extension Router {
    func gate(_ caller: String) -> CallerGate {
        switch callers[caller] {
        case .unknown?:
            // `.unknown` is both "being found out" and "could not be": only the first waits.
            let identifying = operations.values.contains {
                if case .identify(let n) = $0 { n == caller } else { false }
            }
            return identifying ? .wait(identify: false) : .refuse
        case let app?: return .known(app)
        case nil: return .wait(identify: true)
        }
    }

    /// An account call, with every declared account (`accounts`, all owners'):
    /// decided now for a known caller, else held (and the caller identified).
    public func accountCall(_ call: AccountCall, accounts: [Account], caller: String, now: Int64) -> Transition {
        var ids = newOperationIDs
        switch gate(caller) {
        case .known(let app):
            var states = accountTokens
            return carryOn(
                call, accounts: accounts, app: app, caller: caller, held: nil, ids: &ids, states: &states, now: now)
        case .refuse:
            return Transition(reply: refusal(for: call))
        case .wait(let identify):
            let op = ids.take()
            var t = Transition(
                core: [.track(op, .accountCall(call, accounts: accounts, caller: caller))], reply: .held(op))
            if identify { t = t.then(identifying(caller, &ids)) }
            return t
        }
    }

    /// The call, for a caller now known to be `app` (`held`: the operation its reply is held under).
    /// `states` carries what earlier calls in the same transition did to accounts' tokens.
    func carryOn(
        _ call: AccountCall, accounts: [Account], app: CallerApp, caller: String, held: OperationID?,
        ids: inout OperationIDs,
        states: inout [AccountKey: AccountTokens], now: Int64
    ) -> Transition {
        let mine = accounts.filter { $0.owner.serves(app) }
        func named(_ name: String) throws(RouterError) -> Account {
            guard let a = mine.first(where: { $0.name == name }) else { throw Self.unknownAccount(name) }
            return a
        }
        do throws(RouterError) {
            switch call {
            case .getToken(let name, let request):
                return getToken(
                    try named(name), request, caller: caller, held: held, ids: &ids, states: &states, now: now)
            case .list:
                // The host user sees every account (whose it is, never its tokens); an app its own.
                return listing(app == .host ? accounts : mine, caller: caller, held: held, ids: &ids, states: &states)
            case .begin(var pending):
                let account = try named(pending.request.account ?? "")
                try pending.request.use(account)
                // A sign-out at the provider (`BeginLogout`): signed out here first, whatever the provider does.
                if pending.request.logout {
                    return logout(account, caller: caller, held: held, ids: &ids, states: &states, then: (pending, now))
                }
                return beginKnown(pending, held: held, ids: &ids, now: now)
            case .logout(let name):
                return logout(try named(name), caller: caller, held: held, ids: &ids, states: &states)
            case .reject(let name, let token):
                return rejecting(try named(name), token, states: &states).answering(held, .none)
            case .add(let name, let request):
                return try adding(name, request, app: app, accounts: accounts, caller: caller, held: held, ids: &ids)
            case .remove(let name):
                let account = try named(name)
                guard account.owner != .system else {
                    throw RouterError(
                        .accessDenied,
                        "\(name) is the administrator's (in /etc/linkrouter/accounts.d); only they can remove it")
                }
                return changing(.remove(account), caller: caller, held: held, ids: &ids)
            }
        } catch {
            return Transition().answering(held, .refused(error))
        }
    }

    /// `AddAccount`: the account checked and declared for the caller (the
    /// host user's program: the user's; an app: that app's). The same
    /// declaration again changes nothing; a new one replaces the caller's own.
    func adding(
        _ name: String, _ request: AccountRequest, app: CallerApp, accounts: [Account], caller: String,
        held: OperationID?, ids: inout OperationIDs
    ) throws(RouterError) -> Transition {
        guard let owner = Account.Owner(declaring: app) else { throw Self.unknownAccount(name) }
        let account = try Account.make(name: name, request, owner: owner, limits: limits)
        let existing = accounts.first { $0.name == name && $0.owner.serves(app) }
        if existing?.owner == .system {
            throw RouterError(.accessDenied, "\(name) is declared by the administrator; choose another name")
        }
        if existing == account { return Transition().answering(held, .none) }
        // Those being written count too: calls held while the caller was identified each saw the same list.
        let writing = operations.values.count {
            if case .accountFile(.add(let a, nil), _) = $0 { a.owner == owner } else { false }
        }
        if existing == nil, case .app = owner,
            accounts.count(where: { $0.owner == owner }) + writing >= limits.maxAccountsPerApp
        {
            throw RouterError(
                .limitsExceeded,
                "\(app.label) has \(limits.maxAccountsPerApp) accounts already; remove one first (RemoveAccount)")
        }
        return changing(.add(account, replacing: existing), caller: caller, held: held, ids: &ids)
    }

    private func changing(_ change: AccountFileChange, caller: String, held: OperationID?, ids: inout OperationIDs)
        -> Transition
    {
        let op = held ?? ids.take()
        let operation: Operation
        switch change {
        case .add(let account, _): operation = .writeAccount(account)
        case .remove(let account): operation = .removeAccount(account)
        }
        var t = Transition(core: [.track(op, .accountFile(change, caller: caller))], effects: [.start(op, operation)])
        if held == nil { t.reply = .held(op) }
        return t
    }

    /// An account's file written or removed: the call is answered. A removed
    /// account's tokens are forgotten first; so are a replaced one's when it
    /// named another provider or client (they are not its tokens any more).
    func accountFileDone(
        _ op: OperationID, _ change: AccountFileChange, caller: String, _ error: RouterError?, ids: inout OperationIDs
    ) -> Transition {
        if let error { return Transition(core: [.finish(op)], effects: [.answer(op, .refused(error))]) }
        var states = accountTokens
        switch change {
        case .remove(let account):
            let t = Transition(effects: [
                .log(LogLine(.info, "Account \(account.name) of \(account.owner.label) removed by \(caller)"))
            ])
            return t.then(logout(account, caller: caller, held: op, ids: &ids, states: &states))
        case .add(let account, let old):
            var t = Transition(effects: [
                .log(LogLine(.info, "Account \(account.name) of \(account.owner.label) declared by \(caller)"))
            ])
            if let old, old.issuer != account.issuer || old.clientID != account.clientID {
                t = t.then(
                    forgetting(old, why: "its account now names another provider or client", states: &states, ids: &ids)
                )
            }
            return t.answering(op, .none)
        }
    }

    /// The answer a refused caller gets: no account exists for it (an empty list, for `ListAccounts`).
    func refusal(for call: AccountCall) -> Transition.Reply {
        switch call {
        case .getToken(let name, _), .logout(let name), .reject(let name, _), .add(let name, _), .remove(let name):
            return .refused(Self.unknownAccount(name))
        case .list: return .accounts([])
        case .begin(let b): return .refused(Self.unknownAccount(b.request.account ?? ""))
        }
    }
}

extension Transition {
    /// With the held call answered: as the transition's own reply when nothing is held.
    func answering(_ held: OperationID?, _ reply: Transition.Reply) -> Transition {
        var t = self
        if let held {
            t.core.append(.finish(held))
            t.effects.append(.answer(held, reply))
        } else {
            t.reply = reply
        }
        return t
    }
}
