import Crypto
import DBusKit
import LinkRouterAPI
import LinkRouterCore
import Loopback
import SystemKit

/// `Route` and the loopback listener: carrying out the router's decisions.
/// A changed session is persisted first; only then is it taken in, the owner
/// told, and `linkctl` answered (threat model P1).
extension Daemon {
    func route(_ uri: String, sender: String) throws(DBusError) -> String {
        guard routeLimiter.allow() else {
            log.write(.warning, "Route flood: refusing links beyond \(routeLimiter.perSecond) a second (\(routeLimiter.dropped) refused so far)")
            throw Self.busError(RouterError(.limitsExceeded, "too many links in one second; this one was refused, try again"))
        }
        let decision = router.decide(uri, source: .link, now: now)
        do {
            return try carryOut(decision, uri: uri, via: "link from " + sender)
        } catch {
            throw Self.busError(error)
        }
    }

    /// What `Route` would do, without doing it (`linkctl explain`).
    func explain(_ uri: String) -> (String, String) {
        switch router.decide(uri, source: .link, now: now) {
        case .complete(let s): return ("completed", "the state matches \(s.logTag) and the URI is its redirect_uri; the code would be delivered to its owner")
        case .fail(let s): return ("failed", "the state matches \(s.logTag); the callback carries an error, so the session would fail: \(s.failure?.message ?? "")")
        case .resume(let s, let url): return ("resumed", "the state matches \(s.logTag) on its app_callback_uri; resume_uri \(url) would be reopened by \(s.resumeMode.rawValue)")
        case .acknowledge(let s): return ("resumed", "the state matches \(s.logTag) on its app_callback_uri with no resume_uri; the session would keep waiting for its redirect")
        case .passthrough: return ("passthrough", "not a callback of any pending session; it would go, unchanged, to the browser \(webBrowserDescription())")
        case .refuse(let e, _): return ("refused", "\(e.code.dbusName): \(e.message)")
        }
    }

    /// Applies one decision. Returns `Route`'s outcome word, or throws the refusal.
    func carryOut(_ decision: RouteDecision, uri: String, via: @autoclosure () -> String) throws(RouterError) -> String {
        switch decision {
        case .refuse(let error, let id):
            log.write(.notice, "Refused \(via()) (\(id.flatMap { self.router.session($0)?.logTag } ?? self.stateTag(uri))): \(error.code.rawValue): \(error.message)")
            throw error
        case .passthrough(let url):
            try passThrough(url)
            return "passthrough"
        case .complete(let s), .fail(let s):
            try commit(s)
            log.write(.info, "Routed \(via()) to \(s.logTag): \(s.status.rawValue)\(s.failure.map { " (" + $0.message + ")" } ?? "")")
            finished(s)
            return decision.outcome!
        case .acknowledge(let s):
            let changed = router.session(s.id)?.status != s.status
            try commit(s)
            if changed { emitStatusChanged(s) }
            log.write(.info, "Routed \(via()) to \(s.logTag): back from the app, no resume_uri; waiting for the redirect")
            return "resumed"
        case .resume(let s, let url):
            try resume(s, url: url)
            let changed = router.session(s.id)?.status != s.status
            try commit(s)
            if changed { emitStatusChanged(s) }
            log.write(.info, "Routed \(via()) to \(s.logTag): resumed (\(s.resumeMode.rawValue))")
            return "resumed"
        }
    }

    /// Persists a changed session, then takes it in.
    func commit(_ s: Session) throws(RouterError) {
        try persist(s)
        router.replace(s)
    }

    /// Reopens `resume_uri` as the session asked: in the browser that began
    /// the login (its cookies carry it), by a unicast signal to the owner, or not at all.
    func resume(_ s: Session, url: String) throws(RouterError) {
        switch s.resumeMode {
        case .browser:
            let browser: DesktopEntryReference
            if let id = s.browser {
                guard let entry = database.entry(id) else {
                    throw RouterError(.browserFailed, "the browser that began this login (\(id)) is no longer installed, and resume_uri must open in that same browser; nothing was opened")
                }
                browser = DesktopEntryReference(entry: entry)
            } else {
                browser = try chooseBrowser(nil)
            }
            try open(url, in: browser)
        case .client:
            guard let owner = s.owner else {
                throw RouterError(.browserFailed, "resume=client, but the session's owner has left the bus; claim the session and reopen resume_uri yourself")
            }
            do {
                let signal = try DBusMessage.signal(path: ObjectPath(s.id.objectPath)!, interface: InterfaceName(API.sessionInterface)!,
                                                    member: MemberName("ResumeRequested")!)
                try signal.setDestination(BusName(owner)!)
                try signal.append(.string(url))
                send(signal)
            } catch {
                throw RouterError(.internalError, "could not send ResumeRequested: \(error.message)")
            }
        case .none:
            break
        }
    }

    /// A web link that is not a callback: on to the real browser, byte for byte.
    func passThrough(_ url: String) throws(RouterError) {
        let browser = try webBrowser()
        try open(url, in: browser)
        log.write(.info, "Passed a web link through to \(browser.id)")
    }

    /// A short hash of the link's state, for logs that must never hold the state itself.
    func stateTag(_ uri: String) -> String {
        guard let q = uri.firstIndex(of: "?") else { return "no state" }
        let query = uri[uri.index(after: q)...].prefix { $0 != "#" }
        for pair in query.split(separator: "&") where pair.hasPrefix("state=") {
            let hash = (try? SHA256.hash(String(pair.dropFirst(6)))) ?? []
            return "state hash " + Hex.encode(Array(hash.prefix(4)))
        }
        return "no state"
    }

    // MARK: Loopback

    func startListener(for id: SessionID, address: String, port: Int, hostLiteral: String, path: String) throws(ListenerError) -> LoopbackListener {
        let listener = try LoopbackListener(address: address, port: port, hostLiteral: hostLiteral, path: path, loop: loop) { [unowned self] request in
            self.handleLoopback(request, session: id)
        }
        listener.onFinished = { [weak self] in self?.listeners.removeValue(forKey: id)?.close() }
        return listener
    }

    /// One request the listener let through: the router decides as for any link,
    /// but only this session's callback is accepted on this port.
    func handleLoopback(_ request: HTTPRequest, session id: SessionID) -> HTTPResponse {
        guard let listener = listeners[id], let s = router.session(id) else {
            return HTTPResponse(status: 400, body: CallbackPage.status(400))
        }
        let uri = "http://" + (s.redirect.uri.host ?? "127.0.0.1") + ":" + String(listener.port) + request.target
        let decision = router.decide(uri, source: .loopback(id), now: now)
        servingLoopback = id
        defer { servingLoopback = nil }
        do {
            _ = try carryOut(decision, uri: uri, via: "loopback request")
        } catch {
            if error.code == .storageFailed { return HTTPResponse(status: 503, body: CallbackPage.page(title: "Try again", message: "linkrouter could not save the result. Reload this page to try again.")) }
            return HTTPResponse(status: 400, body: CallbackPage.status(400))
        }
        switch decision {
        case .complete: return HTTPResponse(status: 200, body: CallbackPage.signedIn, final: true)
        case .fail(let f): return HTTPResponse(status: 200, body: CallbackPage.failed(f.failure?.providerError), final: true)
        default: return HTTPResponse(status: 400, body: CallbackPage.status(400))
        }
    }
}
