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
        transition(
            for: decide(text, source: source, apps: apps, now: now), link: text, via: via, caller: caller,
            context: context, answers: answers)
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
        return transition(for: decision, link: text, via: via, caller: caller, context: context, answers: answers)
    }

    /// What `Route` would decide (`Explain`).
    public func decide(_ text: String, source: RouteSource, apps: AppDirectory = .empty, now: Int64) -> RouteDecision {
        sessions.decide(text, source: source, apps: apps, limits: limits, now: now)
            ?? .refuse(RouterError(.internalError, "the link was not decided"), nil)
    }

    /// What carrying out a decision takes.
    public func transition(
        for decision: RouteDecision, link: String, via: String, caller: String = "", context: ActivationContext = .none,
        answers: Bool = true
    ) -> Transition {
        switch decision {
        case .deliver(let url, let app, _):
            // The app's answer is an event of its own (`delivered`): the caller hears what became of the link then.
            var ids = newOperationIDs
            let op = ids.take()
            return Transition(
                core: [.track(op, .delivery(Delivery(url: url, app: app, caller: answers ? caller : nil)))],
                effects: [
                    .start(op, .delivery(.deliver(url: url, app: app, context: context))),
                    .log(
                        LogLine(
                            .info,
                            "Handing a link to \(app.id) (\(app.delivery == .dbus ? "D-Bus activation" : "Exec"))")),
                ],
                reply: answers ? .held(op) : .none)
        case .refuse(let error, let id):
            let tag = id.flatMap { session($0)?.logTag } ?? StateTag.of(link)
            return .refused(
                error, log: LogLine(.notice, "Refused \(via) (\(tag)): \(error.code.rawValue): \(error.message)"))
        case .passthrough(let url):
            return Transition(
                effects: [
                    .openBrowser(url, in: .web), .log(LogLine(.info, "Passed a web link through to the browser")),
                ],
                reply: .routed(.passthrough))
        case .complete(let s) where s.status == .exchanging:
            guard case .code(let c) = s.login, let work = c.redeem(s) else {
                return .refused(RouterError(.internalError, "a session exchanging a code has no exchange"))
            }
            var ids = newOperationIDs
            let op = ids.take()
            return Transition(
                changes: [.update(s)], core: [.track(op, .login(s.id, idle: false))],
                effects: [
                    .start(op, .code(work)), .closeListener(s.id), .emitStatus(s.id, .exchanging),
                    .log(LogLine(.info, "Routed \(via) to \(s.logTag): exchanging the code for tokens")),
                ],
                reply: .routed(.completed))
        case .complete(let s), .fail(let s):
            let failure = s.failure.map { " (" + $0.message + ")" } ?? ""
            var t = finishing(s)
            t.changes = [.update(s)]
            t.effects.append(.log(LogLine(.info, "Routed \(via) to \(s.logTag): \(s.status.rawValue)\(failure)")))
            t.reply = .routed(s.status == .completed ? .completed : .failed)
            return t
        case .acknowledge(let s):
            return Transition(
                changes: [.update(s)],
                effects: statusChange(s) + [
                    .log(
                        LogLine(
                            .info,
                            "Routed \(via) to \(s.logTag): back from the app, no resume_uri; waiting for the redirect"))
                ],
                reply: .routed(.resumed))
        case .resume(let s, let url, let mode, let browser):
            var reopen: [Effect] = []
            switch mode {
            case .browser: reopen = [.openBrowser(url, in: .sameAs(browser))]
            case .client:
                guard let owner = s.ownerName else {
                    return .refused(
                        RouterError(
                            .browserFailed,
                            "resume=client, but the session's owner has left the bus; claim the session and reopen resume_uri yourself"
                        ),
                        log: LogLine(
                            .notice,
                            "Refused \(via) (\(s.logTag)): the owner who should reopen resume_uri has left the bus"))
                }
                reopen = [.requestResume(s.id, owner: owner, resumeURI: url)]
            case .none: break
            }
            return Transition(
                changes: [.update(s)],
                effects: reopen + statusChange(s) + [
                    .log(LogLine(.info, "Routed \(via) to \(s.logTag): resumed (\(mode.rawValue))"))
                ],
                reply: .routed(.resumed))
        }
    }

    /// `PropertiesChanged` when the status moved (resumed twice says it once).
    func statusChange(_ s: Session) -> [Effect] {
        session(s.id)?.status == s.status ? [] : [.emitStatus(s.id, s.status)]
    }
}
