/// A browser login's begin (a code login, or a sign-out at the provider):
/// the plan checked, the listener's port named, the request pushed when it
/// is pushed, then the session and the browser.
extension Begin {
    func nextBrowser(held: OperationID?, _ turn: inout Turn) -> Next {
        let owner = Caller(name: caller, app: turn.core.callers[caller] ?? .unknown)
        var plan: SessionPlan
        do {
            plan = try SessionPlan.make(request, flow: flow, metadata: metadata, owner: owner, limits: turn.limits)
            try turn.core.admit(plan)
        } catch {
            return .end(refusing(error, held: held))
        }
        let secrets: SessionSecrets
        switch inputs.secrets {
        case .success(let s): secrets = s
        case .failure(let e):
            return .end(refusing(e, held: held, log: LogLine(.error, "Failed to draw session secrets: \(e.message)")))
        }
        if turn.core.sessions.isInUse(state: secrets.state, id: secrets.id) {
            let e = RouterError(
                .internalError, "the daemon drew a state or id already in use (a 256-bit coincidence); try again")
            return .end(refusing(e, held: held, log: LogLine(.error, "Drew a session id or state already in use")))
        }
        if let e = plan.missingDPoPKey(secrets) {
            return .end(refusing(e, held: held, log: LogLine(.error, "\(method) without a DPoP key for a bound login")))
        }
        var browser: String?
        if plan.openBrowser {
            switch inputs.browser {
            case .success(let id)?: browser = id
            case .failure(let e)?: return .end(refusing(e, held: held))
            case nil:
                return .end(
                    refusing(
                        RouterError(.internalError, "no browser was looked up for a session that opens one"),
                        held: held,
                        log: LogLine(.error, "\(method) without a browser lookup")))
            }
        }
        // A loopback listener is up before the authorize URL exists: it names the port. A sign-out that names the ID
        // token has one for its page too (`SignOutPage`).
        let page = SignOutPage.of(plan, secrets: secrets)
        let binding = plan.loopbackBinding ?? page.map { _ in LoopbackBinding.pageOnly }
        if let binding {
            guard let port else {
                let path = plan.loopbackBinding == nil ? "" : plan.redirect.uri.path
                return .wait(.listen(secrets.id, binding, path: path, page: page))
            }
            plan.bind(port: port)
        }
        // A pushed request (RFC 9126) goes to the provider before anything is opened or kept.
        if requestURI == nil, let push = plan.pushRequest(secrets: secrets) { return .wait(.push(push)) }
        let session = plan.makeSession(
            secrets: secrets, claimTokenDigest: inputs.claimTokenDigest, browser: browser, now: turn.now)
        var url = plan.authorizeURL(secrets: secrets, requestURI: requestURI)
        if let page, let binding, let port { url = "http://" + binding.hostLiteral + ":" + String(port) + page.path }
        var t = Transition(
            changes: [.insert(session)],
            effects: [.scheduleDeadline(session.id, at: turn.core.deadline(of: session))])
        if let browser { t.effects.append(.openBrowser(url, in: .entry(browser), handOff: request.handOff)) }
        if plan.redirect.style == .loopback || page != nil { t.compensation = [.closeListener(session.id)] }
        let (caller, began) = (caller, describe(plan, browser: browser))
        t.effects.append(.log(LogLine(.info, "Began \(session.logTag) for \(caller): \(began)")))
        return .end(begun(t, session, .begun(session.id, authorizeURL: url), held: held, &turn))
    }

    /// The log line's account of what began (never a secret).
    private func describe(_ plan: SessionPlan, browser: String?) -> String {
        let app = plan.appCallback.map { ", app callback " + $0.string } ?? ""
        let opened = browser.map { ", browser " + $0 } ?? ", no browser opened"
        let note =
            (plan.restsOnStateAlone
                ? "; the adopted URL carries no PKCE, so the session rests on state alone (threat model S9)" : "")
            + (requestURI != nil ? "; its request pushed to the provider first (RFC 9126)" : "")
            + (plan.exchange != nil && plan.dpopRequired != nil
                ? (inputs.dpopThumbprint.map { "; its tokens bound to DPoP key \($0) (RFC 9449)" } ?? "") : "")
        let mode =
            switch plan.mode {
            case .builder: "builder"
            case .adopted: "adopted"
            case .logout: "logout"
            }
        return "\(mode), \(plan.redirect.style.rawValue) callback \(plan.redirect.string)\(app)\(opened)\(note)"
    }
}

extension BeginInputs {
    /// The drawn DPoP key's thumbprint, for a log line.
    var dpopThumbprint: String? {
        if case .success(let s) = secrets { return s.dpopKey?.thumbprint }
        return nil
    }
}
