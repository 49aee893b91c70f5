/// A call about accounts that must know its caller's app before it is
/// decided: accounts are the host user's, so each of these is for a caller
/// identified as `host` only. One held until the caller is identified is
/// `PendingOperation.accountCall`, carried on by `Router.carryOn`.
public enum AccountCall: Sendable, Equatable {
    case getToken(Account, TokenRequest)
    case list([Account])
    /// A `BeginSession`/`Login` with `account`.
    case begin(PendingBegin)
    case logout(Account)
    case reject(Account, token: String)
}

/// What the core does with an account call, from what it knows of the caller.
enum CallerGate {
    /// Identified as a program of the host user.
    case host
    /// A sandboxed app, or a caller whose app could not be found out (never taken for the host).
    case refuse
    /// Not identified yet: the call waits; `identify` when no identification is under way.
    case wait(identify: Bool)
}

extension Router {
    func gate(_ caller: String) -> CallerGate {
        switch callers[caller] {
        case .host?: return .host
        case .flatpak?, .snap?: return .refuse
        case nil: return .wait(identify: true)
        case .unknown?:
            // `.unknown` is both "being found out" and "could not be": only the first waits.
            let identifying = operations.values.contains { if case .identify(let n) = $0 { n == caller } else { false } }
            return identifying ? .wait(identify: false) : .refuse
        }
    }

    /// An account call: decided now for a known caller, else held (and the caller identified).
    func accountCall(_ call: AccountCall, caller: String, now: Int64) -> Transition {
        var ids = newOperationIDs
        switch gate(caller) {
        case .host:
            var states = accountTokens
            return carryOn(call, caller: caller, held: nil, ids: &ids, states: &states, now: now)
        case .refuse:
            return Transition(reply: refusal(for: call))
        case .wait(let identify):
            let op = ids.take()
            var t = Transition(core: [.track(op, .accountCall(call, caller: caller))], reply: .held(op))
            if identify { t = t.then(identifying(caller, &ids)) }
            return t
        }
    }

    /// The call, for a caller now known to be the host's (`held`: the operation its reply is held under).
    /// `states` carries what earlier calls in the same transition did to accounts' tokens.
    func carryOn(
        _ call: AccountCall, caller: String, held: OperationID?, ids: inout OperationIDs, states: inout [AccountKey: AccountTokens], now: Int64
    ) -> Transition {
        switch call {
        case .getToken(let account, let request):
            return getToken(account, request, caller: caller, held: held, ids: &ids, states: &states, now: now)
        case .list(let accounts):
            return listing(accounts, caller: caller, held: held, ids: &ids, states: &states)
        case .begin(let pending):
            return beginKnown(pending, held: held, ids: &ids, now: now)
        case .logout(let account):
            return logout(account, caller: caller, held: held, ids: &ids, states: &states)
        case .reject(let account, let token):
            var t = rejecting(account, token, states: &states)
            if let held {
                t.core.append(.finish(held))
                t.effects.append(.answer(held, .none))
            }
            return t
        }
    }

    /// The answer a refused caller gets: no account exists for it (an empty list, for `ListAccounts`).
    func refusal(for call: AccountCall) -> Transition.Reply {
        switch call {
        case .getToken(let a, _), .logout(let a), .reject(let a, _): return .refused(Self.unknownAccount(a.name))
        case .list: return .accounts([])
        case .begin: return .refused(Self.accountsAreTheHosts)
        }
    }
}
