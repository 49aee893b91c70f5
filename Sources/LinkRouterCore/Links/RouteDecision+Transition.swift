/// What carrying out a link's decision takes: the session changed, the
/// operation started (a code's exchange, a link's delivery), the browser
/// opened, and what the click hears.
extension RouteDecision {
    /// What carrying out the decision takes, in `core` as it is: `link` came `via`
    /// somewhere; `caller` holds for the outcome when `answers`.
    func transition(
        in core: Router, link: String, via: String, caller: String, context: ActivationContext, answers: Bool
    ) -> Transition {
        switch self {
        case .deliver(let url, let app, _):
            // The app's answer is an event of its own (`delivered`): the caller hears what became of the link then.
            var ids = core.newOperationIDs
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
        case .returnTo(let s):
            guard let owner = s.ownerName else {
                return .refused(
                    RouterError(.unknownState, "the app that began this login has left the bus; nothing to return to"),
                    log: LogLine(.notice, "Refused \(via) (\(s.logTag)): its owner has left the bus"))
            }
            return Transition(
                effects: [
                    .requestReturn(s.id, owner: owner, handOff: context.forHandOn),
                    .log(LogLine(.info, "Routed \(via) to \(s.logTag): the way back to its app")),
                ],
                reply: .routed(.delivered))
        case .refuse(let error, let id):
            let tag = id.flatMap { core.session($0)?.logTag } ?? StateTag.of(link)
            return .refused(
                error, log: LogLine(.notice, "Refused \(via) (\(tag)): \(error.code.rawValue): \(error.message)"))
        case .passthrough(let url):
            return Transition(
                effects: [
                    .openBrowser(url, in: .web, handOff: context.forHandOn),
                    .log(LogLine(.info, "Passed a web link through to the browser")),
                ],
                reply: .routed(.passthrough))
        case .complete(let found) where found.status == .exchanging:
            let s = found.handingOff(context)
            guard case .code(let c) = s.login, let work = c.redeem(s) else {
                return .refused(RouterError(.internalError, "a session exchanging a code has no exchange"))
            }
            var ids = core.newOperationIDs
            let op = ids.take()
            return Transition(
                changes: [.update(s)], core: [.track(op, .login(s.id, idle: false))],
                effects: [
                    .start(op, .code(work)), .closeListener(s.id), .emitStatus(s.id, .exchanging),
                    .log(LogLine(.info, "Routed \(via) to \(s.logTag): exchanging the code for tokens")),
                ],
                reply: .routed(.completed))
        case .complete(let found), .fail(let found):
            // The click's token, for the owner's window: its `Wait` answer carries it.
            let s = found.handingOff(context)
            let failure = s.failure.map { " (" + $0.message + ")" } ?? ""
            var t = core.finishing(s)
            t.effects.append(.log(LogLine(.info, "Routed \(via) to \(s.logTag): \(s.status.rawValue)\(failure)")))
            t.reply = .routed(s.status == .completed ? .completed : .failed)
            return t
        case .acknowledge(let s):
            return Transition(
                changes: [.update(s)],
                effects: Self.statusChange(s, in: core) + [
                    .log(
                        LogLine(
                            .info,
                            "Routed \(via) to \(s.logTag): back from the app, no resume_uri; waiting for the redirect"))
                ],
                reply: .routed(.resumed))
        case .resume(let s, let url, let mode, let browser):
            var reopen: [Effect] = []
            switch mode {
            // Vipps app-to-app: the browser comes to the front with the clicked `app_callback_uri`'s token.
            case .browser: reopen = [.openBrowser(url, in: .sameAs(browser), handOff: context.forHandOn)]
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
                effects: reopen + Self.statusChange(s, in: core) + [
                    .log(LogLine(.info, "Routed \(via) to \(s.logTag): resumed (\(mode.rawValue))"))
                ],
                reply: .routed(.resumed))
        }
    }

    /// `PropertiesChanged` when the status moved (resumed twice says it once).
    private static func statusChange(_ s: Session, in core: Router) -> [Effect] {
        core.session(s.id)?.status == s.status ? [] : [.emitStatus(s.id, s.status)]
    }
}
