import DBusKit
import JOSE
import LinkRouterAPI
import LinkRouterCore
import OpenSSLKit
import SystemKit

/// The manager's methods (`Interfaces.managerTable`): each decodes its
/// arguments, gathers what the core cannot (randomness, the desktop's
/// files), asks the core for a transition and has it carried out.
extension Daemon: ManagerHandlers {
    /// `BeginSession`: the session and its authorize URL, once the issuer's
    /// metadata and its loopback listener are there when it needs them.
    public func beginSession(_ options: DBusValue, _ call: MethodCall) throws(DBusError) -> MethodReply {
        try begin(OptionsDecoder.session(options), flow: .code, call, login: false)
    }

    /// `Login`: `BeginSession` and a `Wait` with no timeout in one call, for
    /// callers that cannot keep a connection between two calls (`gdbus call`,
    /// `busctl call`). The answer is `(session, result)`; the session's ttl
    /// bounds it, so the caller's own call timeout must be longer than that.
    public func login(_ options: DBusValue, _ call: MethodCall) throws(DBusError) -> MethodReply {
        try begin(OptionsDecoder.session(options), flow: .code, call, login: true)
    }

    /// `BeginDeviceLogin(options)`: `BeginSession`'s provider options (or an
    /// account) for a login with no browser here (RFC 8628). Nothing is opened.
    public func beginDeviceLogin(_ options: DBusValue, _ call: MethodCall) throws(DBusError) -> MethodReply {
        var request = try OptionsDecoder.session(options)
        request.openBrowser = false
        return try begin(request, flow: .device, call, login: false)
    }

    /// With `account`, the core is given every declared account (the files are read here): which one the caller may use
    /// is its to decide.
    private func begin(_ request: SessionRequest, flow: LoginFlow, _ call: MethodCall, login: Bool)
        throws(DBusError) -> MethodReply
    {
        if let name = request.account {
            do { try Account.checkName(name) } catch { throw DBusError(error) }
        }
        let declared = request.account == nil ? [] : accounts.all()
        return try answer(
            call,
            execute(
                core.router.beginSession(
                    request, flow: flow, inputs: inputs(for: request, flow: flow), accounts: declared,
                    caller: call.sender, login: login,
                    now: now)))
    }

    /// What a `BeginSession` needs from outside the core. Reading it opens nothing.
    func inputs(for request: SessionRequest, flow: LoginFlow) -> BeginInputs {
        var secrets: Result<SessionSecrets, RouterError>
        // No fallback randomness (threat model S8).
        do {
            secrets = .success(
                try SecretFactory.make(withVerifier: request.authorizeURL == nil && request.codeChallenge == nil))
        } catch {
            secrets = .failure(
                RouterError(.internalError, "the daemon could not draw random secrets (\(error)); nothing was started"))
        }
        // An account's login may bind its tokens (its `dpop`, decided by the core): a key is ready for it.
        let signsOut = if case .signOut = flow { true } else { false }
        if request.account != nil, !signsOut, case .success(var drawn) = secrets {
            do {
                drawn.dpopKey = try DPoPKey.generate()
                secrets = .success(drawn)
            } catch {
                secrets = .failure(
                    RouterError(
                        .internalError, "the daemon could not make a DPoP key (\(error.message)); nothing was started"))
            }
        }
        let digest = request.claimToken.flatMap { try? SHA256.hash($0) }
        return BeginInputs(
            secrets: secrets, browser: request.openBrowser ? launcher.loginBrowser(request.browser) : nil,
            claimTokenDigest: digest)
    }

    /// `RefreshTokens(options)`: a refresh token for new tokens at the issuer's
    /// token endpoint, with the same checks on a new ID token. The daemon keeps nothing.
    public func refreshTokens(_ options: DBusValue, _ call: MethodCall) throws(DBusError) -> MethodReply {
        let request = try OptionsDecoder.refresh(options)
        return try answer(call, execute(core.router.refreshTokens(request, caller: call.sender)))
    }

    /// `GetToken(account, options)`: a token of the account's, fresh, once for every caller.
    public func getToken(_ name: String, _ options: DBusValue, _ call: MethodCall) throws(DBusError) -> MethodReply {
        let (request, named) = try tokenRequest(name, options)
        return try accountCall(.getToken(name, request), named: named, call)
    }

    /// `GetToken`'s options decoded and checked (the agent socket's `linkrouter_token` too), and the name to check:
    /// asked by issuer or for a resource, the name is empty and the core picks the account (`IssuerChoice`).
    func tokenRequest(_ name: String, _ options: DBusValue) throws(DBusError) -> (TokenRequest, named: String?) {
        let decoded = try OptionsDecoder.decode(options, TokenRequest.options, into: TokenRequest())
        let request: TokenRequest
        do { request = try decoded.withProof(limits: core.router.limits) } catch { throw DBusError(error) }
        let picked = name.isEmpty && (request.issuer != nil || request.forResource != nil)
        return (request, picked ? nil : name)
    }

    /// `SignProof(account, method, url, options)`: a DPoP proof of the account's
    /// key for one request to a resource server, with the hash of its access
    /// token (fresh, as `GetToken` gives it). For the account's owner only, as its tokens are.
    public func signProof(_ name: String, _ method: String, _ url: String, _ options: DBusValue, _ call: MethodCall)
        throws(DBusError) -> MethodReply
    {
        let decoded = try OptionsDecoder.decode(
            options, ProofRequest.options, into: ProofRequest(method: method, url: url))
        var request = TokenRequest()
        do { request.proof = try decoded.checked(limits: core.router.limits) } catch { throw DBusError(error) }
        // A proof for a token the caller holds needs that token to be the current one, not any more life than it has.
        if decoded.accessToken != nil { request.minValid = 0 }
        return try accountCall(.getToken(name, request), named: name, call)
    }

    /// `BeginLogout(account, options)`: the account signed out here, then at its
    /// provider (RP-Initiated Logout): a session whose URL is the provider's
    /// end-session endpoint, completed when the browser comes back with its state.
    public func beginLogout(_ name: String, _ options: DBusValue, _ call: MethodCall) throws(DBusError) -> MethodReply {
        var request = try OptionsDecoder.decode(options, SessionRequest.logoutOptions, into: SessionRequest())
        request.account = name
        return try begin(request, flow: .signOut(idTokenHint: nil), call, login: false)
    }

    /// `Logout(account)`: the account's tokens forgotten, in memory and in the keyring.
    public func logout(_ name: String, _ call: MethodCall) throws(DBusError) -> MethodReply {
        try accountCall(.logout(name), named: name, call)
    }

    /// `RejectToken(account, token)`: a server refused the token; it is not handed out again.
    public func rejectToken(_ name: String, _ token: String, _ call: MethodCall) throws(DBusError) -> MethodReply {
        try accountCall(.reject(name, token: token), named: name, call)
    }

    /// `ListAccounts`: the accounts the caller may see and what the daemon knows of their tokens.
    public func listAccounts(_ call: MethodCall) throws(DBusError) -> MethodReply {
        try answer(
            call, execute(core.router.accountCall(.list, accounts: accounts.all(), caller: call.sender, now: now)))
    }

    /// `AddAccount(account, options)`: an account declared for the caller (a sandboxed app's is its own).
    public func addAccount(_ name: String, _ options: DBusValue, _ call: MethodCall) throws(DBusError) -> MethodReply {
        var request = try OptionsDecoder.decode(options, AccountRequest.options, into: AccountRequest())
        // A client linkrouter registers is named after this machine unless the caller named it (an input the core
        // cannot read).
        if request.clientID == nil, request.clientName == nil {
            let host = Environment.hostName()
            request.clientName = ClientRegistrationRequest.defaultClientName(
                host: OAuthText.isVisibleText(host) ? host : "")
        }
        return try accountCall(.add(name, request), named: name, call)
    }

    /// `RemoveAccount(account)`: the caller's account and its tokens gone.
    public func removeAccount(_ name: String, _ call: MethodCall) throws(DBusError) -> MethodReply {
        try accountCall(.remove(name), named: name, call)
    }

    /// `RevokeGrant(app, account)`: the person's "Always allow" for that app ended; its next call asks again.
    public func revokeGrant(_ app: String, _ name: String, _ call: MethodCall) throws(DBusError) -> MethodReply {
        guard let grantee = CallerApp(label: app), grantee != .host, grantee != .unknown else {
            throw DBusError(
                RouterError(.invalidArgument, "\(app) is not an app's label such as flatpak:org.example.App"))
        }
        return try accountCall(.revokeGrant(app: grantee, account: name), named: name, call)
    }

    /// `ForwardAgent(options)`: a socket of its own for an `ssh -R` forward of the agent, for the caller's life on the
    /// bus. Its path is drawn here (randomness and the runtime directory are inputs, not the core's).
    public func forwardAgent(_ options: DBusValue, _ call: MethodCall) throws(DBusError) -> MethodReply {
        var forward = try OptionsDecoder.decode(options, AgentForward.options, into: AgentForward())
        guard let directory = agent.path.map(FileSystem.directoryName), let drawn = try? SecureRandom.draw(9) else {
            throw DBusError(RouterError(.internalError, "the daemon has no runtime directory for a forward's socket"))
        }
        forward.path = directory + "/forward-" + Base64URL.encode(drawn)
        return try answer(
            call,
            execute(
                core.router.accountCall(.forward(forward), accounts: accounts.all(), caller: call.sender, now: now)))
    }

    /// An account call by name: the name checked, then decided by the core with every declared account.
    private func accountCall(_ c: AccountCall, named name: String?, _ call: MethodCall) throws(DBusError) -> MethodReply
    {
        if let name { do { try Account.checkName(name) } catch { throw DBusError(error) } }
        return try answer(
            call, execute(core.router.accountCall(c, accounts: accounts.all(), caller: call.sender, now: now)))
    }

    /// `Route`: a link click, from `linkctl open` (which uses `RouteLink` to pass the click's activation token).
    public func route(_ uri: String, _ call: MethodCall) throws(DBusError) -> MethodReply {
        try routeLink(uri, context: .none, call)
    }

    /// `RouteLink(uri, context)`: a link, with what came with the click.
    public func routeLink(_ uri: String, context: ActivationContext, _ call: MethodCall) throws(DBusError)
        -> MethodReply
    {
        if let flood = links.admit() {
            log.write(.warning, links.floodLine)
            throw DBusError(flood)
        }
        for what in context.dropped {
            log.write(.warning, "RouteLink from \(call.sender): dropped \(what); the link is routed without it")
        }
        // The same click queued in the inbox by a linkctl that gave up waiting, and routed from there first.
        guard links.firstTime(ClickID(sender: call.sender, serial: call.message.serial)) else {
            throw DBusError(
                RouterError(.replayed, "this click was routed already, from the inbox (its linkctl gave up waiting)"))
        }
        return try answer(
            call,
            routeLink(
                uri, source: .link, via: "link from " + call.sender, caller: call.sender, context: context,
                answers: true))
    }

    /// What `Route` would do, without doing it (`linkctl explain`).
    public func explain(_ uri: String, _ call: MethodCall) -> (outcome: String, reason: String) {
        switch core.router.decide(uri, source: .link, apps: launcher.currentApps(), now: now) {
        case .complete(let s):
            return (
                RouteOutcome.completed.word,
                "the state matches \(s.logTag) and the URI is its redirect_uri; the code would be delivered to its owner"
            )
        case .fail(let s):
            return (
                RouteOutcome.failed.word,
                "the state matches \(s.logTag); the callback carries an error, so the session would fail: \(s.failure?.message ?? "")"
            )
        case .resume(let s, let url, let mode, _):
            return (
                RouteOutcome.resumed.word,
                "the state matches \(s.logTag) on its app_callback_uri; resume_uri \(url) would be reopened by \(mode.rawValue)"
            )
        case .acknowledge(let s):
            return (
                RouteOutcome.resumed.word,
                "the state matches \(s.logTag) on its app_callback_uri with no resume_uri; the session would keep waiting for its redirect"
            )
        case .passthrough:
            return (
                RouteOutcome.passthrough.word,
                "not a callback of any pending session; it would go, unchanged, to the browser \(launcher.webBrowserDescription)"
            )
        case .deliver(_, let app, let rule):
            let how =
                app.delivery == .dbus
                ? "through org.freedesktop.Application.Open (D-Bus activation starts it if it is not running)"
                : "by starting its Exec line"
            return (
                app.delivery == .dbus ? RouteOutcome.delivered.word : RouteOutcome.launched.word,
                "not a login callback; \(rule): it would go to \(app.id) \(how)"
            )
        case .returnTo(let s):
            return (
                RouteOutcome.delivered.word,
                "the way back from \(s.logTag)'s loopback page: its owner would be asked (ReturnRequested) to present its window with the click's token"
            )
        case .refuse(let e, _): return ("refused", "\(e.code.dbusName): \(e.message)")
        }
    }

    public var state: ManagerState {
        ManagerState(
            counters: [
                ("sessions_begun", core.begun), ("sessions_restored", sessions.restoredCount),
                ("links_routed", links.routed),
                ("links_refused", links.refused), ("links_flooded", links.flooded), ("inbox_links", links.queued),
                ("duplicate_links", links.duplicates),
                ("browsers_started", launcher.browsersStarted),
                ("apps_delivered", launcher.appsDelivered), ("apps_launched", launcher.appsLaunched),
                ("token_refreshes", providers.refreshes), ("device_polls", providers.devicePolls),
                ("store_write_failures", sessions.writeFailures), ("log_lines_suppressed", log.suppressedTotal),
                ("restart_held_back", UInt64(core.router.restartHeldBack)),
                ("stop_held_back", UInt64(core.router.stopHeldBack)),
            ], store: sessions.storeDescription)
    }

    public func listSessions(_ call: MethodCall) -> [Session] { core.router.sessions.sessions(ownedBy: call.sender) }

    public func listAllSessions(_ call: MethodCall) -> [Session] {
        core.router.all.sorted { $0.createdAt == $1.createdAt ? $0.id < $1.id : $0.createdAt < $1.createdAt }
    }

    /// A core reply as the method's reply: its values now, its error, or the
    /// call held on the bus until the operation it waits for completes.
    func answer(_ call: MethodCall, _ reply: Transition.Reply) throws(DBusError) -> MethodReply {
        if case .held(let op) = reply {
            bus.hold(call.message, for: op)
            return .deferred
        }
        switch bus.values(reply) {
        case .success(let values): return .values(values)
        case .failure(let error): throw error
        }
    }
}
