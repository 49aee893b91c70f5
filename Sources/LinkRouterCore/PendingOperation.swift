/// What the core remembers of an operation under way: why it was started
/// and what its result is for. Kept in `Router` (taken in from
/// `CoreChange.track`), so an outcome that arrives finds its context, and an
/// outcome for something gone (a caller who left, a session cancelled) finds
/// nothing and does nothing.
public enum PendingOperation: Sendable, Equatable {
    /// A held `Wait` (or `Login`) of `caller` on a session, and the timer that ends it, if any.
    case wait(SessionID, caller: String, login: Bool, timer: OperationID?)
    /// The timer of a held `Wait`, and how long it was given.
    case waitTimeout(OperationID, milliseconds: UInt32)
    /// A `BeginSession` (or `Login`) waiting for the issuer's metadata or its listener.
    case begin(PendingBegin)
    /// A link handed to an app; `answers` when a caller holds for the outcome.
    case deliver(url: String, app: LinkApp, answers: Bool)
    /// A session's code at the token endpoint.
    case redeem(SessionID)
    /// A `RefreshTokens` call: its metadata first, then the refresh.
    case refresh(PendingRefresh)
    /// A restored loopback session listening again.
    case relisten(SessionID)
    /// Finding out the app behind a connection.
    case identify(name: String)
    /// Start-up: the stored sessions are in; which of their owners are still on the bus.
    case restore(previousBusID: String?)
    /// An account's read, refresh or write (`AccountTokens.flight`).
    case tokenFlight(TokenFlight)
    /// A `Logout`, answered once the keyring has forgotten the tokens; with
    /// `reading`, the tokens are read first, to be revoked (the daemon had not read them yet).
    /// With `then`, a `BeginLogout`: its sign-out at the provider begins after that (its ID token from what was read).
    case logout(AccountKey, caller: String, reading: Account?, then: PendingBegin?)
    /// A signed-out account's token revoked at its provider: its metadata first, then the request. Nothing waits on it.
    case revocation(Revocation)
    /// A `ListAccounts` held until its accounts' keyring items are read.
    case listWait([Account], caller: String)
    /// A call about accounts held until its caller's app is known (which accounts it sees depends on it).
    case accountCall(AccountCall, accounts: [Account], caller: String)
    /// An `AddAccount` or `RemoveAccount`, answered once the account's file is written or gone.
    case accountFile(AccountFileChange, caller: String)
    /// A held `GetToken` (or `SignProof`: `proof`), answered when its account's flight lands.
    case tokenWait(AccountKey, caller: String, kind: Account.TokenKind, minValid: Int64, proof: ProofRequest?)
    /// A device-grant session between polls (its timer) or during one (`inFlight`: the request).
    case devicePoll(SessionID, inFlight: Bool)

    /// The bus name whose call this operation answers, or whose request it serves.
    var caller: String? {
        switch self {
        case .wait(_, let c, _, _): return c
        case .begin(let b): return b.caller
        case .refresh(let r): return r.caller
        case .tokenWait(_, let c, _, _, _), .accountCall(_, _, let c), .listWait(_, let c), .logout(_, let c, _, _),
            .accountFile(_, let c):
            return c
        default: return nil
        }
    }

    /// The same work for nobody, when it must finish after its caller left
    /// (`Router.ownerGone`): a sign-out or an account's file change stopped
    /// halfway would leave tokens in the keyring that memory says are gone.
    /// Nil: the work is for its caller only, and is dropped with it.
    func forNobody(_ left: String) -> PendingOperation? {
        let nobody = left + " (gone)"
        switch self {
        // The local sign-out finishes; the provider's, which would open a browser for nobody, does not begin.
        case .logout(let key, _, let reading, _): return .logout(key, caller: nobody, reading: reading, then: nil)
        case .accountFile(let change, _): return .accountFile(change, caller: nobody)
        default: return nil
        }
    }

    /// Its case's name, for a log line (never what it carries).
    var kind: String {
        switch self {
        case .wait: "wait"
        case .waitTimeout: "waitTimeout"
        case .begin: "begin"
        case .deliver: "deliver"
        case .redeem: "redeem"
        case .refresh: "refresh"
        case .relisten: "relisten"
        case .identify: "identify"
        case .restore: "restore"
        case .tokenFlight(let f): "tokenFlight \(f.key.name) \(f.stage)"
        case .logout: "logout"
        case .revocation: "revocation"
        case .listWait: "listWait"
        case .accountCall: "accountCall"
        case .accountFile: "accountFile"
        case .tokenWait: "tokenWait"
        case .devicePoll: "devicePoll"
        }
    }

    /// Whether stopping now loses nothing of it: a held `Wait` is answered
    /// "the session is kept" and asked again of the next daemon; a held
    /// `Login` is not (its caller never got the session's path to wait on),
    /// and any other operation (an exchange, a refresh, a keyring write, a
    /// link handed to an app) is work whose result would go with the process.
    var survivesStop: Bool {
        switch self {
        case .wait(_, _, let login, _): return !login
        case .waitTimeout: return true
        // Between polls: the stored session polls again after a restart. A poll's answer would be lost.
        case .devicePoll(_, let inFlight): return !inFlight
        default: return false
        }
    }

    /// Whether a method call is held under this operation.
    var holdsCall: Bool {
        switch self {
        case .wait, .begin, .refresh, .tokenWait, .accountCall, .listWait, .logout, .accountFile: return true
        case .deliver(_, _, let answers): return answers
        default: return false
        }
    }
}

/// A `BeginSession` between its call and its session.
public struct PendingBegin: Sendable, Equatable {
    public var request: SessionRequest
    public var inputs: BeginInputs
    public var caller: String
    /// `Login`: the call waits for the result too.
    public var login: Bool
    /// The loopback port bound for it, once its listener is up.
    public var port: Int?
    /// The provider's `request_uri` for its pushed request (RFC 9126), once pushed.
    public var requestURI: String?
    /// A device login's codes (RFC 8628), once the provider gave them.
    public var deviceAuthorization: DeviceAuthorization?
    public init(request: SessionRequest, inputs: BeginInputs, caller: String, login: Bool, port: Int? = nil) {
        self.request = request
        self.inputs = inputs
        self.caller = caller
        self.login = login
        self.port = port
    }
}

/// A `RefreshTokens` between its call and its answer.
public struct PendingRefresh: Sendable, Equatable {
    public var request: RefreshRequest
    public var caller: String
    public init(request: RefreshRequest, caller: String) {
        self.request = request
        self.caller = caller
    }
}

/// A change to what the core tracks besides sessions: taken in with the
/// transition's session changes, never written to the store (it does not
/// outlive the daemon: held calls and timers die with it).
public enum CoreChange: Sendable, Equatable {
    case track(OperationID, PendingOperation)
    case finish(OperationID)
    /// The app behind a bus name, kept until the name leaves the bus.
    case caller(String, CallerApp?)
    /// What the daemon now knows of an account's tokens.
    case account(AccountKey, AccountTokens)
    /// Stop to be started again on a replaced executable, once nothing is cut short (`Router.restartIfIdle`).
    case restartWhenIdle
}
