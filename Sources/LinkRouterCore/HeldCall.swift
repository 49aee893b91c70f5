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

    mutating func hold(_ op: OperationID, _ call: HeldCall) {
        calls[op] = call
        if case .wait(let session, _, _, _) = call { waitsBySession[session, default: []].append(op) }
    }

    mutating func release(_ op: OperationID) {
        guard case .wait(let session, _, _, _)? = calls.removeValue(forKey: op) else { return }
        let left = (waitsBySession[session] ?? []).filter { $0 != op }
        waitsBySession[session] = left.isEmpty ? nil : left
    }

    mutating func compact() {
        calls = calls.compacted()
        waitsBySession = waitsBySession.compacted()
    }
}
