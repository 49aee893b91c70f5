/// An `AddAccount` without a `client_id`: linkrouter registers its own
/// public client at the provider (RFC 7591), keeps the means to delete it
/// again (RFC 7592) in the keyring, and only then declares the account with
/// the client's id. Each step waits on one operation: the issuer's metadata
/// (its `registration_endpoint`), a free loopback port for the redirect (a
/// provider may match a loopback redirect's port exactly, as Glewlwyd does),
/// the registration, the keyring. Nothing is declared until every step
/// passed; a client the provider registered but nothing could keep is deleted
/// there again, so a failed `AddAccount` leaves nothing behind.
public struct ClientRegistration: OperationMachine {
    public let name: String
    /// The declaration, checked, without its client (and its initial access token, if any, spent here).
    let request: AccountRequest
    /// The account as it will be, with a stand-in client: its owner, key, issuer and redirect.
    let draft: Account
    let replacing: Account?
    /// The owner's other defaults at the issuer, declared again without it once the account is written.
    let clearing: [Account]
    public let caller: String
    var stage: Stage

    public enum Stage: Sendable, Equatable {
        case discovering
        /// The redirect as declared, a loopback one without a port, which the port picked completes.
        case pickingPort(ProviderMetadata, endpoint: String, redirect: CallbackURI)
        case registering(ClientRegistrationRequest)
        /// The client is registered; the keyring takes the means to delete it.
        case keeping(RegisteredClient, RegistrationCredentials, redirect: String)
        /// Something after the registration failed: the client is deleted at the provider again, then the call hears why.
        case undoing(RouterError)
    }

    public enum Work: Sendable, Equatable {
        case discover(issuer: String)
        /// A free port on the loopback addresses the redirect names (bound and closed again).
        case pickPort(LoopbackBinding)
        case register(ClientRegistrationRequest)
        case keep(AccountKey, RegistrationCredentials)
        case undo(RegistrationCredentials)
    }

    public enum Event: Sendable {
        case metadata(Result<ProviderMetadata, RouterError>)
        case port(Result<Int, RouterError>)
        /// The endpoint's answer read (`RegistrationAnswer.read`), or why none came.
        case registered(Result<RegistrationAnswer, RouterError>)
        case kept(RouterError?)
        case undone(RouterError?)
    }

    var running: Running { .registration(self) }

    init?(_ running: Running) {
        guard case .registration(let m) = running else { return nil }
        self = m
    }

    init(
        name: String, request: AccountRequest, draft: Account, replacing: Account?, clearing: [Account], caller: String,
        stage: Stage
    ) {
        self.name = name
        self.request = request
        self.draft = draft
        self.replacing = replacing
        self.clearing = clearing
        self.caller = caller
        self.stage = stage
    }

    /// The registration begun for `AddAccount(name, request)` with no `client_id`. `request.clientName` is set by the
    /// daemon beforehand (the host's name is its to read).
    static func start(
        _ name: String, _ request: AccountRequest, owner: Account.Owner, replacing: Account?, accounts: [Account],
        caller: String, held: OperationID?, _ turn: inout Turn
    ) throws(RouterError) -> Transition {
        var probe = request
        probe.clientID = Self.standIn
        probe.registrationToken = nil
        let draft = try Account.make(name: name, probe, owner: owner, limits: turn.limits)
        // An app's registration under one of the person's names would read as theirs (its client is new, so the name
        // is all there is to compare): refused as every look-alike is, before anything is registered.
        if case .app = owner, AccountCall.personsLookAlike(of: draft, among: accounts, byName: true) != nil {
            throw AccountCall.lookAlike(name)
        }
        if let r = request.registrationToken, !OAuthText.isVisibleText(r) {
            throw .invalid("registration_token must be printable ASCII")
        }
        let machine = ClientRegistration(
            name: name, request: request, draft: draft, replacing: replacing,
            clearing: draft.defaultsItClears(among: accounts), caller: caller, stage: .discovering)
        let op = held ?? turn.ids.take()
        var t = Transition(
            core: [.track(op, .registration(machine))],
            effects: [.start(op, .registration(.discover(issuer: draft.issuer)))])
        if held == nil { t.reply = .held(op) }
        return t
    }

    /// The client id an account is checked with before it has one.
    static let standIn = "linkrouter-registering"

    mutating func handle(_ event: Event, op: OperationID, _ turn: inout Turn) -> Transition {
        switch (stage, event) {
        case (.discovering, .metadata(.success(let m))):
            guard let endpoint = m.registrationEndpoint else { return failed(op, Self.notOffered(draft.issuer)) }
            // The declaration was checked (`Account.make`), so its redirect parses.
            if let redirect = try? CallbackURI.parse(draft.redirectURI, role: "redirect_uri"),
                let binding = redirect.loopbackBinding, binding.port == 0
            {
                stage = .pickingPort(m, endpoint: endpoint, redirect: redirect)
                return Transition(effects: [.start(op, .registration(.pickPort(binding)))])
            }
            return register(op, m, endpoint, redirect: draft.redirectURI)
        case (.discovering, .metadata(.failure(let e))):
            return failed(op, e)
        case (.pickingPort(let m, let endpoint, let redirect), .port(.success(let port))):
            return register(op, m, endpoint, redirect: redirect.bound(port: port).string)
        case (.pickingPort, .port(.failure(let e))):
            return failed(op, e)
        case (.registering(let sent), .registered(.success(.registered(let client)))):
            guard let management = client.management else {
                return declare(op, client, redirect: sent.redirectURI, &turn)
            }
            stage = .keeping(client, management, redirect: sent.redirectURI)
            return Transition(effects: [.start(op, .registration(.keep(draft.key, management)))])
        case (.registering, .registered(.success(.unusable(let e, let management?)))):
            return undo(op, management, because: e)
        case (.registering, .registered(.success(.unusable(let e, nil)))),
            (.registering, .registered(.success(.refused(let e)))), (.registering, .registered(.failure(let e))):
            return failed(op, e)
        case (.keeping(let client, _, let redirect), .kept(nil)):
            return declare(op, client, redirect: redirect, &turn)
        case (.keeping(let client, let management, _), .kept(let e?)):
            let why = RouterError(
                e.code,
                "the keyring could not keep the means to delete client \(client.clientID) again (\(e.message)), so it was deleted at \(draft.issuer) and \(name) is not declared"
            )
            return undo(op, management, because: why)
        case (.undoing(let why), .undone(let e)):
            let said =
                e.map {
                    RouterError(
                        why.code,
                        why.message
                            + "; deleting it again failed too (\($0.message)): remove it at the provider by hand")
                } ?? why
            return failed(op, said)
        case (.discovering, _), (.pickingPort, _), (.registering, _), (.keeping, _), (.undoing, _):
            // An answer this stage did not ask for: nothing changes (its kind is logged, never what it carries).
            let name = name
            return Transition(
                effects: [.log(LogLine(.warning, "\(name)'s registration ignored an answer it did not ask for"))])
        }
    }

    /// The provider named no registration endpoint: what a person does instead.
    static func notOffered(_ issuer: String) -> RouterError {
        RouterError(
            .registrationFailed,
            "\(issuer) offers no client registration (its metadata names no registration_endpoint, RFC 7591): register a public client there by hand (no secret, PKCE S256, the redirect http://127.0.0.1/callback or your own) and give its id with --client-id ID"
        )
    }

    private mutating func register(_ op: OperationID, _ m: ProviderMetadata, _ endpoint: String, redirect: String)
        -> Transition
    {
        let request = ClientRegistrationRequest(
            endpoint: endpoint, initialAccessToken: request.registrationToken,
            clientName: request.clientName ?? ClientRegistrationRequest.defaultClientName(host: ""),
            redirectURI: redirect,
            grantTypes: ClientRegistrationRequest.grantTypes(m, deviceEndpoint: draft.deviceAuthorizationEndpoint),
            scope: draft.scope)
        stage = .registering(request)
        return Transition(effects: [.start(op, .registration(.register(request)))])
    }

    /// The client registered (and its management kept): the account declared with it, under the same call.
    private mutating func declare(_ op: OperationID, _ client: RegisteredClient, redirect: String, _ turn: inout Turn)
        -> Transition
    {
        var r = request
        r.clientID = client.clientID
        r.clientName = client.clientName
        r.redirectURI = redirect
        r.registrationToken = nil
        r.registered = (client.management == nil ? Account.Registered.unmanaged : .managed).rawValue
        let account: Account
        do throws(RouterError) {
            account = try Account.make(name: name, r, owner: draft.owner, limits: turn.limits)
        } catch {
            guard let management = client.management else { return failed(op, error) }
            return undo(op, management, because: error)
        }
        let kept = client.management == nil ? "; the provider offers no way to delete it (RFC 7592)" : ""
        let (name, issuer, owner, caller) = (name, draft.issuer, draft.owner.label, caller)
        return Transition(
            core: [.finish(op)],
            effects: [
                .log(
                    LogLine(
                        .info,
                        "Registered client \(client.clientID) (\"\(client.clientName)\") at \(issuer) for \(name) of \(owner), asked by \(caller)\(kept)"
                    ))
            ]
        ).then(
            AccountFileWrite.start(
                .add(account, replacing: replacing), clearing: clearing, caller: caller, held: op, &turn))
    }

    private mutating func undo(_ op: OperationID, _ management: RegistrationCredentials, because why: RouterError)
        -> Transition
    {
        stage = .undoing(why)
        return Transition(effects: [.start(op, .registration(.undo(management)))])
    }

    private func failed(_ op: OperationID, _ e: RouterError) -> Transition {
        let (name, issuer, owner) = (name, draft.issuer, draft.owner.label)
        return Transition(
            core: [.finish(op)],
            effects: [
                .log(LogLine(.info, "\(name) of \(owner) was not registered at \(issuer): \(e.message)")),
                .answer(op, .refused(e)),
            ])
    }
}
