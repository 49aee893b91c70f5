/// `Route`: from one incoming link to one transition. The decision is the
/// session table's and the session's login's (`SessionTable.decide`); what
/// carrying it out takes is here.
extension Router {
    /// `Route` (and the loopback listener, and the inbox): one link in, one
    /// transition out. `via` says where the link came from, for the log;
    /// `caller` who holds for the outcome (with `answers`; a queued link or a
    /// loopback request has nobody). `apps` says which app takes the links that
    /// are not callbacks; `context` is what came with the click (an activation token).
    public func route(
        _ text: String, source: RouteSource, via: String, caller: String = "", apps: AppDirectory = .empty,
        context: ActivationContext = .none, answers: Bool = true, now: Int64
    ) -> Transition {
        decide(text, source: source, apps: apps, now: now).transition(
            in: self, link: text, via: via, caller: caller, context: context, answers: answers)
    }

    /// `route` before the desktop's app directory is read (reading it is I/O):
    /// the transition, or nil when the link is no login's, for the daemon to
    /// read the directory and call `route` with it. A callback costs no read.
    public func routeLogin(
        _ text: String, source: RouteSource, via: String, caller: String = "", context: ActivationContext = .none,
        answers: Bool = true, now: Int64
    ) -> Transition? {
        guard let decision = sessions.decide(text, source: source, apps: nil, limits: limits, now: now) else {
            return nil
        }
        return decision.transition(in: self, link: text, via: via, caller: caller, context: context, answers: answers)
    }

    /// What `Route` would decide (`Explain`).
    public func decide(_ text: String, source: RouteSource, apps: AppDirectory = .empty, now: Int64) -> RouteDecision {
        sessions.decide(text, source: source, apps: apps, limits: limits, now: now)
            ?? .refuse(RouterError(.internalError, "the link was not decided"), nil)
    }

}
