/// A begin (`BeginSession`, `Login`, `BeginDeviceLogin`, `BeginLogout`)
/// between its call and its session: it gathers, in this order and only what
/// its login needs, whether the keyring an account keeps its tokens in is
/// there at all (a sign-in whose tokens would have nowhere to go is refused
/// before a browser opens), the issuer's metadata, a loopback listener (whose port the
/// authorize URL names), a pushed request (RFC 9126) or a device
/// authorization (RFC 8628), then makes the session (`Begin+Code.swift`,
/// `Begin+Device.swift`). Nothing is bound, written or opened that a
/// transition does not name; a refusal at any step leaves nothing behind.
public struct Begin: Sendable, Equatable {
    public var request: SessionRequest
    /// The kind of login: the method's row chose it.
    public var flow: LoginFlow
    public var inputs: BeginInputs
    public var caller: String
    /// `Login`: the call waits for the result too.
    public var login: Bool
    /// The issuer's metadata, once fetched (`SessionPlan.needsDiscovery`).
    public var metadata: ProviderMetadata?
    /// The loopback port bound for it, once its listener is up.
    public var port: Int?
    /// The provider's `request_uri` for its pushed request, once pushed.
    public var requestURI: String?
    /// A device login's codes, once the provider gave them.
    public var deviceAuthorization: DeviceAuthorization?
    /// An account login's keyring answered (whatever it said but "there is no Secret Service").
    public var keyringThere = false

    public init(
        request: SessionRequest, flow: LoginFlow = .code, inputs: BeginInputs, caller: String, login: Bool = false
    ) {
        self.request = request
        self.flow = flow
        self.inputs = inputs
        self.caller = caller
        self.login = login
    }

    public enum Work: Sendable, Equatable {
        /// The account's item read from the keyring, to learn whether there is a Secret Service to keep its tokens.
        case probeKeyring(AccountKey)
        /// The issuer's metadata (OpenID Connect Discovery, then RFC 8414); at once when cached.
        case discover(issuer: String)
        /// The session's loopback listener, before its authorize URL exists (port 0: any port); for a sign-out that
        /// names the ID token, with the page the browser is opened at (`SignOutPage`).
        case listen(SessionID, LoopbackBinding, path: String, page: SignOutPage? = nil)
        /// The authorization request pushed to the provider (RFC 9126 §2): the `request_uri` comes back.
        case push(PushRequest)
        /// The device authorization request (RFC 8628 §3.1): the codes come back.
        case authorizeDevice(DeviceGrant.Request)
    }

    public enum Event: Sendable {
        case keyring(KeyringRead)
        case metadata(Result<ProviderMetadata, RouterError>)
        /// The port the listener is bound to.
        case listening(Result<Int, RouterError>)
        case pushed(Result<String, RouterError>)
        case deviceAuthorized(Result<DeviceAuthorization, RouterError>)
    }

    /// What the begin does next: wait for one more thing, or end (with its session, or refused).
    enum Next {
        case wait(Work)
        case end(Transition)
    }

    /// The call's name in the log.
    var method: String {
        switch flow {
        case .code: "BeginSession"
        case .device: "BeginDeviceLogin"
        case .signOut: "BeginLogout"
        }
    }

    /// The begin goes on from where it is, its call held under `held` (or, when
    /// nil, under a new operation if it must wait, else answered at once).
    func proceed(held: OperationID?, _ turn: inout Turn) -> Transition {
        switch next(held: held, &turn) {
        case .end(let t):
            return t
        case .wait(let work):
            let op = held ?? turn.ids.take()
            return Transition(
                core: [.track(op, .begin(self))], effects: [.start(op, .begin(work))],
                reply: held == nil ? .held(op) : .none)
        }
    }

    /// The next step; an end answers the call held under `held` (or replies, when none is).
    private func next(held: OperationID?, _ turn: inout Turn) -> Next {
        if case .device = flow, let e = Self.deviceRefusal(request) { return .end(refusing(e, held: held)) }
        // An account that keeps its tokens in the keyring: is there one? (Asked first: it opens nothing.)
        if !keyringThere, request.accountStore == .keyring, let name = request.account, let issuer = request.issuer,
            !flow.isSignOut
        {
            return .wait(.probeKeyring(AccountKey(qualifiedName: name, issuer: issuer)))
        }
        if metadata == nil, SessionPlan.needsDiscovery(request, flow: flow), let issuer = request.issuer {
            return .wait(.discover(issuer: issuer))
        }
        switch flow {
        case .device: return nextDevice(held: held, &turn)
        case .code, .signOut: return nextBrowser(held: held, &turn)
        }
    }

    /// The begin refused, with nothing kept: its held call hears why, or its reply says it.
    func refusing(_ error: RouterError, held: OperationID?, log: LogLine? = nil) -> Transition {
        let (caller, method) = (caller, method)
        let line = log ?? LogLine(.info, "Refused \(method) from \(caller): \(error.message)")
        var t = Transition(effects: [.log(line)]).answering(held, .refused(error))
        // The person's click on a sign-in notice has no caller to answer: the person hears it.
        if caller == Caller.personName, let account = request.account {
            t.effects.append(AccountNotice.signInFailed(account, why: error.message))
        }
        return t
    }

    /// The begin made its session: the call hears `answer`, or, for a `Login`,
    /// goes on waiting under the same operation for the session's result.
    func begun(_ t: Transition, _ session: Session, _ answer: Transition.Reply, held: OperationID?, _ turn: inout Turn)
        -> Transition
    {
        var t = t
        if login {
            let op = held ?? turn.ids.take()
            if held != nil { t.core.append(.finish(op)) }
            t.core.append(.hold(op, .wait(session.id, caller: caller, login: true, timer: nil)))
            if held == nil { t.reply = .held(op) }
        } else {
            t = t.answering(held, answer)
        }
        // Who the owner is, as for any session (shown as `OwnerApp`); an account's caller is known already.
        return t.then(Identification.start(caller, &turn))
    }
}

extension Begin: OperationMachine {
    var running: Running { .begin(self) }

    init?(_ running: Running) {
        guard case .begin(let m) = running else { return nil }
        self = m
    }

    mutating func handle(_ event: Event, op: OperationID, _ turn: inout Turn) -> Transition {
        let (caller, method) = (caller, method)
        switch event {
        case .keyring(.failure(let e)) where e.code == .noKeyring:
            // The keyring's own words say what is missing and both ways out; one message, not a second opinion.
            let refusal = RouterError(.noKeyring, "\(e.message); nothing was opened")
            return refusing(refusal, held: op)
        case .keyring:
            // There is a keyring (locked or not: a locked one asks to be unlocked when the tokens are written).
            keyringThere = true
        case .metadata(.success(let m)):
            metadata = m
        case .listening(.success(let port)):
            self.port = port
        case .pushed(.success(let requestURI)):
            self.requestURI = requestURI
        case .deviceAuthorized(.success(let a)):
            deviceAuthorization = a
        case .metadata(.failure(let e)):
            return refusing(e, held: op, log: LogLine(.notice, "Discovery for \(caller) failed: \(e.message)"))
        case .listening(.failure(let e)):
            return refusing(e, held: op)
        case .pushed(.failure(let e)), .deviceAuthorized(.failure(let e)):
            return closingListener(
                refusing(e, held: op, log: LogLine(.notice, "Refused \(method) from \(caller): \(e.message)")))
        }
        switch next(held: op, &turn) {
        case .wait(let work):
            return Transition(core: [.advance(op, .begin(self))], effects: [.start(op, .begin(work))])
        case .end(let t):
            return closingListener(t)
        }
    }

    /// A listener bound for a session that will not be (refused after all: a limit reached meanwhile) goes with the
    /// request.
    private func closingListener(_ t: Transition) -> Transition {
        let madeSession = t.changes.contains { if case .insert = $0 { true } else { false } }
        guard !madeSession, port != nil, case .success(let secrets) = inputs.secrets else { return t }
        var t = t
        t.effects.append(.closeListener(secrets.id))
        return t
    }
}
