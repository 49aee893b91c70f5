/// From one incoming link to one decision, by the table's indexes.
///
/// Order matters and follows the issue and threat model: strict syntax before
/// any parameter is read, then `state`, then the exact callback match (the
/// session's login: `CodeLogin.callback`, `ProviderSignOut.callback`), then
/// the step the parameters name. A web link is passed through unless its
/// state names a session; a URL whose state matched is never forwarded (R5).
extension SessionTable {
    /// OAuth response parameters: each may appear at most once (threat model U1).
    static let singletons = ["state", "code", "error", "error_description", "error_uri", "iss", "resume_uri"]

    /// What `text` is: a callback of a session (its login decides), a login link no
    /// session waits for, a deep link to an app, a web link to pass through, or
    /// nothing linkrouter routes. Nil when it is a link no login waits for and
    /// `apps` was not given: the caller reads the desktop's app directory (I/O,
    /// done only for such links) and asks again with it.
    func decide(_ text: String, source: RouteSource, apps: AppDirectory?, limits: Limits, now: Int64) -> RouteDecision?
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
        // The way back from a loopback login's page: only to a login that completed and offered it.
        if ReturnLink.isReturn(uri) {
            guard let state, let session = session(withState: state), session.status == .completed,
                session.login.returnTo != nil
            else {
                return .refuse(
                    RouterError(.unknownState, "this way back names no completed login that offered one"), nil)
            }
            return .returnTo(session)
        }
        guard let state, let session = session(withState: state) else {
            // A callback no session waits for: without a state, or with one nobody knows.
            let unmatched: RouteDecision =
                if state == nil {
                    .refuse(.invalid("the callback has no state parameter, so it cannot be matched to a session"), nil)
                } else {
                    .refuse(
                        RouterError(
                            .unknownState,
                            "no session is waiting for this state; the login may have been begun elsewhere, already finished and purged, or the link was forged"
                        ), nil)
                }
            if case .loopback = source { return unmatched }
            if let state,
                let quirk = vippsErrorQuirk(
                    uri: uri, query: query, state: state, source: source, limits: limits, now: now)
            {
                return quirk
            }
            // A login link whose state no session knows is never a deep link.
            if isLoginLink(uri, query) {
                return mayPass ? .passthrough(text) : unmatched
            }
            // 2. The app that owns the scheme, or the longest https claim that covers the link.
            guard let apps else { return nil }
            if let (app, rule) = apps.app(for: uri) { return .deliver(url: text, app: app, rule: rule) }
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
        switch session.login {
        case .code(let c): return c.callback(uri, query, session: session, limits: limits, now: now)
        case .signOut(let s): return s.callback(uri, query, session: session, now: now)
        case .device:
            return .refuse(RouterError(.internalError, "a device login has no state and takes no callback"), session.id)
        }
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
            if let id = id(ofState: value) { return id }
            if let q = value.firstIndex(of: "?"), let id = id(ofState: String(value[..<q])) { return id }
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
        uri: URIReference, query: QueryParameters, state: String, source: RouteSource, limits: Limits, now: Int64
    ) -> RouteDecision? {
        guard source == .link, let mark = state.firstIndex(of: "?") else { return nil }
        let key = CallbackURI.matchKey(for: uri, loopback: false)
        guard isAppCallbackKey(key), let session = session(withState: String(state[..<mark])),
            let app = session.login.appCallback, !session.status.isFinished, now < session.expiresAt
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
        return .fail(
            session.providerFailure(error, query: QueryParameters(pairs: extra), what: "the authorization", now: now))
    }
}
