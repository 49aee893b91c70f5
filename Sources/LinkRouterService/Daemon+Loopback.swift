import LinkRouterAPI
import LinkRouterCore
import Loopback

/// The loopback listeners: one per loopback session, in the daemon's loop.
/// A request the listener lets through is routed like any link, but only
/// this session's callback is accepted on this port.
extension Daemon {
    func startListener(for id: SessionID, binding: LoopbackBinding, path: String) throws(ListenerError) -> LoopbackListener {
        let listener = try LoopbackListener(addresses: binding.addresses, port: binding.port, hostLiteral: binding.hostLiteral, path: path, loop: loop) { [unowned self] request in
            self.handleLoopback(request, session: id)
        }
        listener.onFinished = { [weak self] in self?.listeners.removeValue(forKey: id)?.close() }
        return listener
    }

    /// The `listen` effect: a restored loopback session listens on its port again, or fails.
    func listenAgain(_ id: SessionID) {
        guard let s = router.session(id), let binding = s.redirect.loopbackBinding else { return }
        do {
            listeners[id] = try startListener(for: id, binding: binding, path: s.redirect.uri.path)
        } catch {
            _ = try? execute(router.listenerFailed(id, reason: error.description, now: now))
        }
    }

    func handleLoopback(_ request: HTTPRequest, session id: SessionID) -> HTTPResponse {
        guard let listener = listeners[id], let s = router.session(id) else {
            return HTTPResponse(status: 400, body: CallbackPage.status(400))
        }
        let uri = "http://" + (s.redirect.uri.host ?? "127.0.0.1") + ":" + String(listener.port) + request.target
        servingLoopback = id
        defer { servingLoopback = nil }
        let reply: Transition.Reply
        do { reply = try execute(router.route(uri, source: .loopback(id), via: "loopback request", now: now)) } catch {
            if error.code == .storageFailed { return HTTPResponse(status: 503, body: CallbackPage.page(title: "Try again", message: "linkrouter could not save the result. Reload this page to try again.")) }
            return HTTPResponse(status: 400, body: CallbackPage.status(400))
        }
        switch reply {
        case .routed(.completed): return HTTPResponse(status: 200, body: CallbackPage.signedIn, final: true)
        case .routed(.failed): return HTTPResponse(status: 200, body: CallbackPage.failed(router.session(id)?.failure?.providerError), final: true)
        default: return HTTPResponse(status: 400, body: CallbackPage.status(400))
        }
    }
}
