import LinkRouterCore
import Loopback

/// A link from any source (`Route`/`RouteLink`, the inbox, a session's
/// loopback listener), decided by the core and carried out. Kept apart from
/// `Daemon+Operations.swift`, which a routed link's effects enter, so a walk
/// down from a click never re-enters the file it came through.
extension Daemon {
    /// A request a session's loopback listener let through: routed like any
    /// link, but only this session's callback is accepted on this port.
    func loopbackRequest(_ request: HTTPRequest, session id: SessionID, port: Int) -> HTTPResponse {
        guard let s = core.router.session(id) else {
            return HTTPResponse(status: 400, body: CallbackPage.status(400))
        }
        let uri = "http://" + (s.login.redirect?.uri.host ?? "127.0.0.1") + ":" + String(port) + request.target
        switch routeLink(
            uri, source: .loopback(id), via: "loopback request", caller: "", context: .none, answers: false)
        {
        case .routed(.completed):
            // The way back, when the login's caller named its app: the link's click brings that app to the front.
            guard let app = s.login.returnTo, let state = s.login.state else {
                return HTTPResponse(status: 200, body: CallbackPage.signedIn, final: true)
            }
            return HTTPResponse(
                status: 200,
                body: CallbackPage.signedIn(returningTo: launcher.appName(app), link: ReturnLink.link(state: state)),
                final: true)
        case .routed(.failed):
            return HTTPResponse(
                status: 200, body: CallbackPage.failed(core.router.session(id)?.failure?.providerError), final: true
            )
        case .refused(let e) where e.code == .storageFailed:
            return HTTPResponse(
                status: 503,
                body: CallbackPage.page(
                    title: "Try again", message: "linkrouter could not save the result. Reload this page to try again.")
            )
        default: return HTTPResponse(status: 400, body: CallbackPage.status(400))
        }
    }

    /// A sign-out's page (`SignOutPage`): the form to the provider, with the session's redirect and state; a session
    /// that is over (or not a sign-out) has none.
    func signOutPage(_ page: SignOutPage, session id: SessionID) -> HTTPResponse {
        guard let s = core.router.session(id), s.status == .pending, case .signOut(let signOut) = s.login else {
            return HTTPResponse(status: 404, body: CallbackPage.status(404))
        }
        return CallbackPage.signOutForm(
            action: page.action, fields: page.fields(redirect: signOut.redirect.string, state: signOut.state))
    }

    /// One link from any source (`Route`, the inbox, a loopback listener), decided and carried out;
    /// `caller` holds for its outcome when `answers`. The desktop's app directory is read (the
    /// core's input) only for a link that is no login's: a callback costs no read.
    @discardableResult
    func routeLink(
        _ link: String, source: RouteSource, via: String, caller: String, context: ActivationContext, answers: Bool
    ) -> Transition.Reply {
        let router = core.router
        let t =
            router.routeLogin(
                link, source: source, via: via, caller: caller, context: context, answers: answers, now: now)
            ?? router.route(
                link, source: source, via: via, caller: caller, apps: launcher.currentApps(), context: context,
                answers: answers, now: now)
        let reply = execute(t)
        links.count(reply)
        return reply
    }
}
