import Crypto
import DBusKit
import LinkRouterAPI
import LinkRouterCore
import Loopback
import OpenIDConnect
import SystemKit

/// The manager's methods (`Interfaces.managerTable`): each asks the router
/// for a transition and hands it to the executor.
extension Daemon: ManagerHandlers {
    /// `BeginSession`: validate, choose the browser, draw secrets, bind a
    /// loopback port; then the transition (write, open the browser). A
    /// refusal at any step leaves nothing behind (threat model P6).
    public func beginSession(_ options: DBusValue, _ call: MethodCall) throws(DBusError) -> MethodReply {
        try withDiscovery(try SessionOptions.decode(options), call) { request throws(DBusError) in
            let (id, url) = try self.begin(request, call)
            return .values([.objectPath(API.path(of: id)), .string(url)])
        }
    }

    /// Runs `then` on `request` once the issuer's metadata is in it, when it
    /// needs any (`SessionPlan.needsDiscovery`); at once otherwise.
    func withDiscovery(_ request: SessionRequest, _ call: MethodCall,
                       then: @escaping (SessionRequest) throws(DBusError) -> MethodReply) throws(DBusError) -> MethodReply {
        guard SessionPlan.needsDiscovery(request), let issuer = request.issuer else { return try then(request) }
        return try withMetadata(issuer, call) { metadata throws(DBusError) in
            var discovered = request
            discovered.discovered = metadata
            return try then(discovered)
        }
    }

    /// The rest of `BeginSession`, with the request complete.
    func begin(_ request: SessionRequest, _ call: MethodCall) throws(DBusError) -> (id: SessionID, url: String) {
        var plan: SessionPlan
        do {
            plan = try SessionPlan.make(request, owner: call.sender, limits: router.limits)
            try router.admit(plan)
        } catch {
            log.write(.info, "Refused BeginSession from \(call.sender): \(error.message)")
            throw DBusError(error)
        }
        guard ensureStore() else {
            throw DBusError(RouterError(.storageFailed, "the session store is unavailable (\(storeProblem ?? "unknown reason")), so a session could not be kept safe; nothing was started"))
        }
        // The browser is chosen before anything is bound or written.
        var browser: String?
        if plan.openBrowser {
            do { browser = try chooseBrowser(request.browser).id } catch { throw DBusError(error) }
        }
        let secrets: SessionSecrets
        let digest: [UInt8]?
        do {
            var drawn = try SecretFactory.make(withVerifier: plan.needsVerifier)
            while router.isInUse(state: drawn.state, id: drawn.id) { drawn = try SecretFactory.make(withVerifier: plan.needsVerifier) }
            secrets = drawn
            digest = try plan.claimToken.map { t throws(CryptoError) in try SHA256.hash(t) }
        } catch {
            // No fallback randomness (threat model S8).
            Log.error("Failed to draw session secrets: \(error)")
            throw DBusError(RouterError(.internalError, "the daemon could not draw random secrets (\(error)); nothing was started"))
        }
        // A loopback listener is up before the authorize URL exists.
        if let binding = plan.loopbackBinding {
            do {
                let l = try startListener(for: secrets.id, binding: binding, path: plan.redirect.uri.path)
                plan.bind(port: l.port)
                listeners[secrets.id] = l
            } catch {
                throw DBusError(RouterError(.listenerFailed, error.description))
            }
        }
        let reply: Transition.Reply
        do { reply = try execute(router.begin(plan, secrets: secrets, claimTokenDigest: digest, browser: browser, now: now)) } catch {
            throw DBusError(error)
        }
        guard case .begun(let id, let url) = reply else { throw DBusError(RouterError(.internalError, "BeginSession made no session")) }
        return (id, url)
    }

    /// `Login`: `BeginSession` and a `Wait` with no timeout in one call, for
    /// callers that cannot keep a connection between two calls (`gdbus call`,
    /// `busctl call`). The answer is `(session, result)`; the session's ttl
    /// bounds it, so the caller's own call timeout must be longer than that.
    public func login(_ options: DBusValue, _ call: MethodCall) throws(DBusError) -> MethodReply {
        try withDiscovery(try SessionOptions.decode(options), call) { request throws(DBusError) in
            let id = try self.begin(request, call).id
            let path = API.path(of: id)
            do throws(RouterError) {
                switch try self.execute(self.router.wait(id, by: call.sender, timeoutMilliseconds: 0), call: call, shape: .sessionAndResult(path)) {
                case .waited(.success(let result)): return .values([.objectPath(path), ResultDictionary.make(result)])
                case .waited(.failure(let error)): throw error
                default: return .deferred
                }
            } catch {
                throw DBusError(error)
            }
        }
    }

    /// `RefreshTokens(options)`: a refresh token for new tokens at the issuer's
    /// token endpoint, with the same checks on a new ID token. The daemon keeps nothing.
    public func refreshTokens(_ options: DBusValue, _ call: MethodCall) throws(DBusError) -> MethodReply {
        let request = try RefreshOptions.decode(options)
        return try withMetadata(request.issuer, call) { metadata throws(DBusError) in
            let client: TokenClient
            do throws(RouterError) { client = try self.tokenClient() } catch { throw DBusError(error) }
            try self.checkHTTPRoom(client)
            let grant = TokenClient.Grant(tokenEndpoint: metadata.tokenEndpoint, jwksURI: metadata.jwksURI,
                                          expected: IDTokenClaims.Expected(issuer: metadata.issuer, clientID: request.clientID, nonce: nil),
                                          requiresIDToken: false)
            client.refresh(request.refreshToken, scope: request.scope, grant: grant) { [weak self] outcome in
                guard let self else { return }
                switch outcome {
                case .success(let tokens):
                    self.reply(to: call.message, values: [ResultDictionary.make(tokens)])
                case .failure(let failure):
                    self.log.write(.notice, "RefreshTokens for \(call.sender) failed: \(failure.message)")
                    self.reply(to: call.message, error: DBusError(failure.error))
                }
            }
            return .deferred
        }
    }

    /// `Route`: a link click, from `linkctl open` (which uses `RouteLink` to pass the click's activation token).
    public func route(_ uri: String, _ call: MethodCall) throws(DBusError) -> MethodReply {
        try routeLink(uri, context: .none, call)
    }

    /// `RouteLink(uri, context)`: a link, with what came with the click.
    public func routeLink(_ uri: String, context: ActivationContext, _ call: MethodCall) throws(DBusError) -> MethodReply {
        guard routeLimiter.allow() else {
            log.write(.warning, "Route flood: refusing links beyond \(routeLimiter.perSecond) a second (\(routeLimiter.dropped) refused so far)")
            throw DBusError(RouterError(.limitsExceeded, "too many links in one second; this one was refused, try again"))
        }
        let via = "link from " + call.sender
        do throws(RouterError) {
            let reply: Transition.Reply
            do { reply = try execute(router.route(uri, source: .link, via: via, apps: currentApps(), context: context, now: now), call: call) } catch {
                // An app that cannot take a web link does not lose it: the browser does.
                guard error.code == .appFailed, SchemeRule.isWebLink(uri) else { throw error }
                log.write(.warning, "\(error.message); opening it in the browser instead")
                reply = try execute(router.transition(for: .passthrough(uri), link: uri, via: via))
            }
            switch reply {
            case .routed(let outcome): return .values([.string(outcome.word)])
            case .deferred: return .deferred
            default: throw RouterError(.internalError, "the link was neither routed nor refused")
            }
        } catch {
            throw DBusError(error)
        }
    }

    /// What `Route` would do, without doing it (`linkctl explain`).
    public func explain(_ uri: String, _ call: MethodCall) -> (outcome: String, reason: String) {
        switch router.decide(uri, source: .link, apps: currentApps(), now: now) {
        case .complete(let s): return (RouteOutcome.completed.word, "the state matches \(s.logTag) and the URI is its redirect_uri; the code would be delivered to its owner")
        case .fail(let s): return (RouteOutcome.failed.word, "the state matches \(s.logTag); the callback carries an error, so the session would fail: \(s.failure?.message ?? "")")
        case .resume(let s, let url): return (RouteOutcome.resumed.word, "the state matches \(s.logTag) on its app_callback_uri; resume_uri \(url) would be reopened by \(s.resumeMode.rawValue)")
        case .acknowledge(let s): return (RouteOutcome.resumed.word, "the state matches \(s.logTag) on its app_callback_uri with no resume_uri; the session would keep waiting for its redirect")
        case .passthrough: return (RouteOutcome.passthrough.word, "not a callback of any pending session; it would go, unchanged, to the browser \(webBrowserDescription())")
        case .deliver(_, let app, let rule):
            let how = app.delivery == .dbus ? "through org.freedesktop.Application.Open (D-Bus activation starts it if it is not running)" : "by starting its Exec line"
            return (app.delivery == .dbus ? RouteOutcome.delivered.word : RouteOutcome.launched.word, "not a login callback; \(rule): it would go to \(app.id) \(how)")
        case .refuse(let e, _): return ("refused", "\(e.code.dbusName): \(e.message)")
        }
    }

    public var state: ManagerState { ManagerState(counters: counters.entries, store: storeDescription) }

    public func listSessions(_ call: MethodCall) -> [Session] { router.sessions(ownedBy: call.sender) }

    public func listAllSessions(_ call: MethodCall) -> [Session] {
        router.all.sorted { $0.createdAt == $1.createdAt ? $0.id < $1.id : $0.createdAt < $1.createdAt }
    }
}
