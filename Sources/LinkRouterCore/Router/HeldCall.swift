/// A method call held until some machine's progress answers it: it starts
/// no operation of its own (but a `Wait`'s timer). The bus holds the call
/// under the same id (`Transition.Reply.held`).
public enum HeldCall: Sendable, Equatable {
    /// A `Wait` (or a `Login` whose session began) of `caller` on a session, and the timer that ends it, if any.
    case wait(SessionID, caller: String, login: Bool, timer: OperationID?)
    /// A `GetToken` (or `SignProof`), answered when its account's flight lands.
    case token(TokenWait)
    /// A `ListAccounts`, answered once its accounts' keyring items are read.
    case list([Account], caller: String)
    /// A call about accounts, decided once its caller's app is known (which accounts it sees depends on it).
    case account(AccountCall, accounts: [Account], caller: String)

    /// The bus name whose call this is.
    var caller: String {
        switch self {
        case .wait(_, let c, _, _), .list(_, let c), .account(_, _, let c): c
        case .token(let w): w.caller
        }
    }

    /// Whether stopping now loses nothing of it: a held `Wait` is answered
    /// "the session is kept" and asked again of the next daemon; a held
    /// `Login` is not (its caller never got the session's path to wait on), nor
    /// is a call about tokens (its answer would go with the process).
    var survivesStop: Bool {
        if case .wait(_, _, let login, _) = self { return !login }
        return false
    }
}

/// The calls held, with an index of each session's waits (in the order they came).
struct HeldCalls: Sendable {
    private(set) var calls: [OperationID: HeldCall] = [:]
    private var waitsBySession: [SessionID: [OperationID]] = [:]

    subscript(op: OperationID) -> HeldCall? { calls[op] }

    /// The held `Wait`s of a session.
    func waits(on id: SessionID) -> [OperationID] { waitsBySession[id] ?? [] }

    /// The held `GetToken`s of an account, oldest first.
    func tokenWaits(of key: AccountKey) -> [(op: OperationID, wait: TokenWait)] {
        calls.compactMap { op, call in
            if case .token(let w) = call, w.key == key { return (op, w) }
            return nil
        }.sorted { $0.op < $1.op }
    }

    /// Account calls held, per bus name and per sandboxed app (its label, over all its connections): what
    /// `Limits.maxHeldAccountCallsPerCaller` and `…PerApp` bound (issue 44: 20,000 held calls from one app took the
    /// daemon from 26 to 101 MB).
    private var accountCallsByCaller: [String: Int] = [:]
    private var accountCallsByApp: [String: Int] = [:]
    private var appOfCall: [OperationID: String] = [:]

    /// Account calls held for `caller`.
    func accountCalls(of caller: String) -> Int { accountCallsByCaller[caller] ?? 0 }

    /// Account calls held for the sandboxed app `app` (a host program or one not identified counts per connection only).
    func accountCalls(ofApp app: CallerApp) -> Int { accountCallsByApp[app.label] ?? 0 }

    /// Holds `call` under `op`; `app`: its caller's app, where it is known.
    mutating func hold(_ op: OperationID, _ call: HeldCall, app: CallerApp?) {
        calls[op] = call
        switch call {
        case .wait(let session, _, _, _):
            waitsBySession[session, default: []].append(op)
        case .token, .list, .account:
            accountCallsByCaller[call.caller, default: 0] += 1
            if let app, app.isSandboxed {
                appOfCall[op] = app.label
                accountCallsByApp[app.label, default: 0] += 1
            }
        }
    }

    mutating func release(_ op: OperationID) {
        guard let call = calls.removeValue(forKey: op) else { return }
        switch call {
        case .wait(let session, _, _, _):
            let left = (waitsBySession[session] ?? []).filter { $0 != op }
            waitsBySession[session] = left.isEmpty ? nil : left
        case .token, .list, .account:
            Self.decrement(&accountCallsByCaller, call.caller)
            if let label = appOfCall.removeValue(forKey: op) { Self.decrement(&accountCallsByApp, label) }
        }
    }

    private static func decrement(_ counts: inout [String: Int], _ key: String) {
        let left = (counts[key] ?? 1) - 1
        counts[key] = left > 0 ? left : nil
    }

    mutating func compact() {
        calls = calls.compacted()
        waitsBySession = waitsBySession.compacted()
        accountCallsByCaller = accountCallsByCaller.compacted()
        accountCallsByApp = accountCallsByApp.compacted()
        appOfCall = appOfCall.compacted()
    }
}
