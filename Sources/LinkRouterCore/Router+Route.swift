/// `Route`: from one incoming link to one decision.
///
/// Order matters and follows the issue and threat model: strict syntax before
/// any parameter is read, then `state`, then the exact callback match, then
/// the step the parameters name. A web link is passed through unless its
/// state names a session; a URL whose state matched is never forwarded (R5).
extension Router {
    /// OAuth response parameters: each may appear at most once (threat model U1).
    static let singletons = ["state", "code", "error", "error_description", "error_uri", "iss", "resume_uri"]

    /// `Route` (and the loopback listener, and the inbox): one link in, one
    /// transition out. `via` says where the link came from, for the log.
    /// `apps` says which app takes the links that are not callbacks (asked
    /// for only when a link is not one: finding out reads the desktop's files);
    /// `context` is what came with the click (an activation token). `answers`
    /// is false when no caller waits for the outcome (a queued link, a loopback request).
    public func route(
        _ text: String, source: RouteSource, via: String, apps: @autoclosure () -> AppDirectory = .empty,
        context: ActivationContext = .none, answers: Bool = true, now: Int64
    ) -> Transition {
        transition(
            for: decide(text, source: source, apps: apps(), now: now), link: text, via: via, context: context,
            answers: answers)
    }

    /// What carrying out a decision takes.
    public func transition(
        for decision: RouteDecision, link: String, via: String, context: ActivationContext = .none, answers: Bool = true
    ) -> Transition {
        switch decision {
        case .deliver(let url, let app, _):
            // The app's answer is an event of its own (`delivered`): the caller hears what became of the link then.
            var ids = newOperationIDs
            let op = ids.take()
            return Transition(
                core: [.track(op, .deliver(url: url, app: app, answers: answers))],
                effects: [
                    .start(op, .deliver(url: url, app: app, context: context)),
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
            var ids = newOperationIDs
            let op = ids.take()
            return Transition(
                changes: [.update(s)], core: [.track(op, .redeem(s.id))],
                effects: [
                    .start(op, redeem(s)), .closeListener(s.id), .emitStatus(s.id, .exchanging),
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
        case .resume(let s, let url):
            var reopen: [Effect] = []
            switch s.code.resumeMode {
            case .browser: reopen = [.openBrowser(url, in: .sameAs(s.code.browser))]
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
                    .log(LogLine(.info, "Routed \(via) to \(s.logTag): resumed (\(s.code.resumeMode.rawValue))"))
                ],
                reply: .routed(.resumed))
        }
    }

    /// What a session that just finished does: its listener closes, its held
    /// `Wait`s hear, the bus is told, and its purge is timed.
    func finishing(_ s: Session) -> Transition {
        var t = answeringWaits(
            of: s.id, with: s.waitAnswer ?? .failure(RouterError(.internalError, "the session ended without a result")))
        t.effects =
            [.closeListener(s.id)] + t.effects + [
                .emitStatus(s.id, s.status), .scheduleDeadline(s.id, at: deadline(of: s)),
            ]
        // A device login's poll stops with it (its timer cancelled; an answer in flight then finds nothing).
        if !s.isCodeFlow {
            for (op, pending) in operations {
                guard case .devicePoll(s.id, _) = pending else { continue }
                t.effects.append(.cancel(op))
                t.core.append(.finish(op))
            }
        }
        return t
    }

    /// Every held `Wait` of the session hears `answer`; their timers stop.
    func answeringWaits(of id: SessionID, with answer: Result<AuthorizationResult, RouterError>) -> Transition {
        var t = Transition()
        for op in waits(on: id) {
            guard case .wait(_, _, let login, let timer)? = operations[op] else { continue }
            t.effects.append(.answer(op, login ? .loggedIn(id, answer) : .waited(answer)))
            t.core.append(.finish(op))
            if let timer {
                t.effects.append(.cancel(timer))
                t.core.append(.finish(timer))
            }
        }
        return t
    }

    /// The code exchange a session's transition starts (its grant from the session's exchange plan).
    func redeem(_ s: Session) -> Operation {
        let c = s.code
        let exchange = c.exchange!
        let grant = TokenGrant(
            tokenEndpoint: exchange.tokenEndpoint, jwksURI: exchange.jwksURI,
            expected: IDTokenClaims.Expected(issuer: c.issuer ?? "", clientID: exchange.clientID, nonce: c.nonce),
            requiresIDToken: exchange.expectsIDToken, dpop: exchange.dpop)
        return .redeem(
            grant, code: s.result?.code ?? "", redirectURI: s.result?.redirectURI ?? c.redirect.string,
            verifier: c.codeVerifier ?? s.result?.codeVerifier)
    }

    /// `PropertiesChanged` when the status moved (resumed twice says it once).
    func statusChange(_ s: Session) -> [Effect] {
        session(s.id)?.status == s.status ? [] : [.emitStatus(s.id, s.status)]
    }

    public func decide(_ text: String, source: RouteSource, apps: @autoclosure () -> AppDirectory = .empty, now: Int64)
        -> RouteDecision
    {
        let lenient: URIReference
        do { lenient = try URIReference.split(text) } catch { return .refuse(error, nil) }
        let scheme = lenient.normalizedScheme
        let isWeb = SchemeRule.isWeb(scheme)
        let mayPass = isWeb && source == .link

        /// A malformed web link passes through unless it carries a known state.
        func refuseOrPass(_ error: RouterError) -> RouteDecision {
            if mayPass {
                let hit = knownState(inRawQuery: lenient.query)
                return hit == nil ? .passthrough(text) : .refuse(error, hit)
            }
            return .refuse(error, nil)
        }

        let uri: URIReference
        let query: QueryParameters
        do throws(RouterError) {
            uri = try URIReference.strict(text, maxLength: limits.maxURIBytes)
            query = try QueryParameters.parse(uri.query, limits: limits.query)
            if let (name, count) = query.repeated(among: Self.singletons) {
                throw RouterError.invalid(
                    "parameter \"\(name)\" appears \(count) times; OAuth allows each response parameter once (RFC 6749 §3.1)"
                )
            }
        } catch {
            return refuseOrPass(error)
        }
        if !isWeb && !SchemeRule.isReverseDomain(scheme) {
            return .refuse(
                RouterError(
                    .notACallback,
                    "\"\(scheme):\" links are not callbacks; linkrouter routes reverse-domain schemes, and https or loopback callbacks"
                ), nil)
        }

        // 1. A state that names a session: a callback, for its owner.
        let state = try? query.single("state")
        guard let state, let session = session(withState: state) else {
            if case .loopback = source {
                if state == nil {
                    return .refuse(
                        .invalid("the callback has no state parameter, so it cannot be matched to a session"), nil)
                }
                return .refuse(
                    RouterError(
                        .unknownState,
                        "no session is waiting for this state; the login may have been begun elsewhere, already finished and purged, or the link was forged"
                    ), nil)
            }
            if let state, let quirk = vippsErrorQuirk(uri: uri, query: query, state: state, source: source, now: now) {
                return quirk
            }
            // A login link whose state no session knows is never a deep link.
            if isLoginLink(uri, query) {
                if mayPass { return .passthrough(text) }
                guard state != nil else {
                    return .refuse(
                        .invalid("the callback has no state parameter, so it cannot be matched to a session"), nil)
                }
                return .refuse(
                    RouterError(
                        .unknownState,
                        "no session is waiting for this state; the login may have been begun elsewhere, already finished and purged, or the link was forged"
                    ), nil)
            }
            // 2. The app that owns the scheme, or the longest https claim that covers the link.
            if let (app, rule) = apps().app(for: uri) { return .deliver(url: text, app: app, rule: rule) }
            // 3. Otherwise: the web link to the browser; a custom-scheme link is refused, saying how to fix it.
            if mayPass { return .passthrough(text) }
            return .refuse(
                RouterError(
                    .noApp,
                    "no app takes \(scheme): links: register the app that should with `linkctl register \(scheme) --app APP.desktop` (its desktop entry declares MimeType=x-scheme-handler/\(scheme);)"
                ),
                nil)
        }
        if case .loopback(let listener) = source, listener != session.id {
            return .refuse(
                RouterError(
                    .callbackMismatch, "this state belongs to another session, not to the one listening on this port"),
                session.id)
        }
        return decide(uri: uri, query: query, session: session, now: now)
    }

    private func decide(uri: URIReference, query: QueryParameters, session: Session, now: Int64) -> RouteDecision {
        switch session.status {
        case .completed, .failed:
            return .refuse(
                RouterError(
                    .replayed,
                    "this session already \(session.status.rawValue); a state is used once and later callbacks with it are refused"
                ), session.id)
        case .exchanging:
            return .refuse(
                RouterError(
                    .replayed,
                    "this session already has its code, which is being exchanged for tokens; a state is used once and later callbacks with it are refused"
                ), session.id)
        case .expired:
            return .refuse(RouterError(.expired, "this session expired; begin a new one"), session.id)
        case .cancelled:
            return .refuse(RouterError(.cancelled, "this session was cancelled"), session.id)
        case .pending, .resumed:
            break
        }
        if now >= session.expiresAt {
            return .refuse(RouterError(.expired, "this session expired; begin a new one"), session.id)
        }

        let flow = session.code
        let redirectMismatch = flow.redirect.mismatch(with: uri, query: query)
        let appMismatch = flow.appCallback.map { $0.mismatch(with: uri, query: query) } ?? "no app_callback_uri"
        let isRedirect = redirectMismatch == nil
        let isApp = flow.appCallback != nil && appMismatch == nil
        guard isRedirect || isApp else {
            var why = "redirect_uri: \(redirectMismatch!)"
            if flow.appCallback != nil { why += "; nor its app_callback_uri: \(appMismatch!)" }
            return .refuse(
                RouterError(.callbackMismatch, "the callback does not match the session's registered \(why)"),
                session.id)
        }

        let code = (try? query.single("code")) ?? nil
        let error = (try? query.single("error")) ?? nil
        let resume = (try? query.single("resume_uri")) ?? nil
        if code != nil && error != nil {
            return .refuse(
                .invalid("the callback carries both code and error; a response has one or the other (RFC 6749 §4.1.2)"),
                session.id)
        }
        // A sign-out at the provider comes back with its state alone (RP-Initiated Logout §3).
        if flow.source == .logout {
            guard code == nil, resume == nil, isRedirect else {
                return .refuse(
                    .invalid("a sign-out's way back carries state only, never a code or resume_uri"), session.id)
            }
            if let error { return .fail(providerFailure(session, error: error, query: query, now: now)) }
            var done = session.finished(.completed, failure: nil, now: now)
            done.result = AuthorizationResult(
                code: "", state: flow.state, redirectURI: flow.redirect.string, callbackURI: uri.original, issuer: nil,
                codeVerifier: nil, nonce: nil)
            return .complete(done)
        }
        if resume != nil && (code != nil || error != nil) {
            return .refuse(
                .invalid(
                    "the callback carries resume_uri together with \(code != nil ? "code" : "error"); the app step and the redirect are separate callbacks"
                ), session.id)
        }

        if let error {
            return .fail(providerFailure(session, error: error, query: query, now: now))
        }
        if let code {
            guard isRedirect else {
                return .refuse(
                    RouterError(
                        .callbackMismatch,
                        "a code arrived on the app_callback_uri; codes are accepted only on the redirect_uri \(flow.redirect.string)"
                    ), session.id)
            }
            if let failure = issuerFailure(session, query: query) {
                return .fail(session.finished(.failed, failure: failure, now: now))
            }
            // With `exchange`, the code goes to the token endpoint before the owner hears anything.
            var done = flow.exchange == nil ? session.finished(.completed, failure: nil, now: now) : session
            done.status = flow.exchange == nil ? .completed : .exchanging
            done.result = AuthorizationResult(
                code: code, state: flow.state, redirectURI: flow.redirect.string, callbackURI: uri.original,
                issuer: (try? query.single("iss")) ?? nil, codeVerifier: flow.codeVerifier, nonce: flow.nonce)
            return .complete(done)
        }
        guard isApp else {
            return .refuse(.invalid("the callback on redirect_uri carries neither code nor error"), session.id)
        }
        var resumed = session
        resumed.status = .resumed
        guard let resume else { return .acknowledge(resumed) }
        if flow.resumeOpened {
            return .refuse(
                RouterError(
                    .replayed, "resume_uri was already opened for this session; a repeated app callback is ignored"),
                session.id)
        }
        let target: String
        do { target = try ResumePolicy.check(resume, for: flow, maxLength: limits.maxURIBytes) } catch {
            return .refuse(error, session.id)
        }
        resumed.code.resumeOpened = true
        return .resume(resumed, resumeURI: target)
    }

    /// The failed copy for a provider `error=` (threat model S6: only the OAuth
    /// charset is passed on; `error_uri` is never opened).
    private func providerFailure(_ session: Session, error: String, query: QueryParameters, now: Int64) -> Session {
        let code = OAuthText.isErrorText(error) ? error : "invalid_response"
        let description = OAuthText.sanitizedDescription((try? query.single("error_description")) ?? nil)
        let what =
            session.isCodeFlow && session.code.source == .logout
            ? "the sign-out (the account is signed out here all the same)" : "the authorization"
        var message = "the provider refused \(what): \(code)"
        if let description { message += " (\(description))" }
        return session.finished(
            .failed,
            failure: SessionFailure(
                code: .authorizationFailed, providerError: code, providerDescription: description, message: message),
            now: now)
    }

    /// RFC 9207 §2.4: compare `iss` with the session's issuer by simple string
    /// comparison after form decoding; a missing `iss` fails only when required.
    private func issuerFailure(_ session: Session, query: QueryParameters) -> SessionFailure? {
        guard let expected = session.code.issuer else { return nil }
        let iss = (try? query.single("iss")) ?? nil
        if let iss, iss != expected {
            return SessionFailure(
                code: .issuerMismatch,
                message:
                    "the response's iss \"\(PercentEncoding.preview(Substring(iss)))\" is not the session's issuer \(expected) (a mix-up attack, RFC 9207); the code was not delivered"
            )
        }
        if iss == nil && session.code.requireIssuer {
            return SessionFailure(
                code: .issuerMismatch,
                message:
                    "the response carries no iss, but the session requires one from \(expected) (RFC 9207); the code was not delivered"
            )
        }
        return nil
    }

    /// Part of a login, whatever its state, so never a deep link: any link on a
    /// callback URI a session of the router's registered, and `state` with a
    /// response parameter (`code`, `error`, `iss`, `resume_uri`) anywhere.
    /// (`code` alone, off any callback, may be an app's own: a gift code.)
    func isLoginLink(_ uri: URIReference, _ query: QueryParameters) -> Bool {
        if isCallbackKey(CallbackURI.matchKey(for: uri, loopback: false)) { return true }
        var state = false
        var response = false
        for p in query.pairs {
            switch p.name {
            case "state": state = true
            case "code", "error", "iss", "resume_uri": response = true
            default: break
            }
        }
        return state && response
    }

    /// A session id if any `state=` in a raw (possibly malformed) query names a session.
    private func knownState(inRawQuery query: String?) -> SessionID? {
        guard let query else { return nil }
        for segment in query.utf8.split(separator: 0x26) {
            let seg = Substring(segment)
            guard let eq = seg.firstIndex(of: "=") else { continue }
            let name = (try? PercentEncoding.decode(seg[..<eq], form: true)) ?? String(seg[..<eq])
            guard name == "state" else { continue }
            let raw = seg[seg.index(after: eq)...]
            let value = (try? PercentEncoding.decode(raw, form: true)) ?? String(raw)
            if let id = byState[ByteKey(value)] { return id }
            if let q = value.firstIndex(of: "?"), let id = byState[ByteKey(String(value[..<q]))] { return id }
        }
        return nil
    }

    /// The Vipps document's error example, `app-callback?state=S?error=unknown_error`,
    /// has `?` where `&` belongs. Read strictly that is one state "S?error=…",
    /// which matches nothing. On an app_callback_uri only, if the part before
    /// the first `?` is exactly a pending session's state and the rest (with
    /// any other parameters) is `error` plus at most `error_description`, the
    /// session fails with that error. It can never complete or resume one.
    private func vippsErrorQuirk(
        uri: URIReference, query: QueryParameters, state: String, source: RouteSource, now: Int64
    ) -> RouteDecision? {
        guard source == .link, let mark = state.firstIndex(of: "?") else { return nil }
        let key = CallbackURI.matchKey(for: uri, loopback: false)
        guard isAppCallbackKey(key), let session = session(withState: String(state[..<mark])),
            let app = session.code.appCallback, !session.status.isFinished, now < session.expiresAt
        else { return nil }
        let tail: QueryParameters
        do { tail = try QueryParameters.parse(String(state[state.index(after: mark)...]), limits: limits.query) } catch
        { return nil }
        let others = query.pairs.filter { $0.name != "state" && !app.ownQuery.contains($0) }
        let extra = tail.pairs + others
        guard extra.allSatisfy({ $0.name == "error" || $0.name == "error_description" }),
            extra.filter({ $0.name == "error" }).count == 1,
            extra.filter({ $0.name == "error_description" }).count <= 1,
            let error = extra.first(where: { $0.name == "error" })?.value, !error.isEmpty
        else { return nil }
        var strictQuery = query.pairs.filter { $0.name != "state" }
        strictQuery.removeAll { $0.name == "error" || $0.name == "error_description" }
        guard app.mismatch(with: uri, query: QueryParameters(pairs: strictQuery)) == nil else { return nil }
        return .fail(providerFailure(session, error: error, query: QueryParameters(pairs: extra), now: now))
    }
}
