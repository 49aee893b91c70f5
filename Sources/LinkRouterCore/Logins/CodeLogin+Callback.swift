/// A code login's callback (`Router.decide` found the session by its state):
/// the exact callback match, then the step the parameters name: a code
/// completes the session (or starts its exchange), an error fails it, the
/// Vipps/MobilePay app step resumes it (threat model R1–R4, U1, S6).
extension CodeLogin {
    func callback(_ uri: URIReference, _ query: QueryParameters, session: Session, limits: Limits, now: Int64)
        -> RouteDecision
    {
        if let refusal = session.callbackRefusal(now: now) { return refusal }
        let redirectMismatch = redirect.mismatch(with: uri, query: query)
        let appMismatch = appCallback.map { $0.mismatch(with: uri, query: query) } ?? "no app_callback_uri"
        let isRedirect = redirectMismatch == nil
        let isApp = appCallback != nil && appMismatch == nil
        guard isRedirect || isApp else {
            var why = "redirect_uri: \(redirectMismatch!)"
            if appCallback != nil { why += "; nor its app_callback_uri: \(appMismatch!)" }
            return .refuse(
                RouterError(.callbackMismatch, "the callback does not match the session's registered \(why)"),
                session.id)
        }

        let response: CallbackResponse
        do { response = try CallbackResponse(query) } catch { return .refuse(error, session.id) }
        let (code, error, resume) = (response.code, response.error, response.resume)
        if resume != nil && (code != nil || error != nil) {
            return .refuse(
                .invalid(
                    "the callback carries resume_uri together with \(code != nil ? "code" : "error"); the app step and the redirect are separate callbacks"
                ), session.id)
        }
        if let error { return .fail(session.providerFailure(error, query: query, what: "the authorization", now: now)) }
        if let code {
            guard isRedirect else {
                return .refuse(
                    RouterError(
                        .callbackMismatch,
                        "a code arrived on the app_callback_uri; codes are accepted only on the redirect_uri \(redirect.string)"
                    ), session.id)
            }
            if let failure = issuerFailure(query) {
                return .fail(session.finished(.failed, failure: failure, now: now))
            }
            // With `exchange`, the code goes to the token endpoint before the owner hears anything.
            var done = exchange == nil ? session.finished(.completed, failure: nil, now: now) : session
            done.status = exchange == nil ? .completed : .exchanging
            done.result = AuthorizationResult(
                code: code, state: state, redirectURI: redirect.string, callbackURI: uri.original,
                issuer: (try? query.single("iss")) ?? nil, codeVerifier: codeVerifier, nonce: nonce)
            return .complete(done)
        }
        guard isApp else {
            return .refuse(.invalid("the callback on redirect_uri carries neither code nor error"), session.id)
        }
        var resumed = session
        resumed.status = .resumed
        guard let resume else { return .acknowledge(resumed) }
        if resumeOpened {
            return .refuse(
                RouterError(
                    .replayed, "resume_uri was already opened for this session; a repeated app callback is ignored"),
                session.id)
        }
        let target: String
        do { target = try ResumePolicy.check(resume, for: self, maxLength: limits.maxURIBytes) } catch {
            return .refuse(error, session.id)
        }
        var opened = self
        opened.resumeOpened = true
        resumed.login = .code(opened)
        return .resume(resumed, resumeURI: target, by: options.resumeMode, browser: browser)
    }

    /// RFC 9207 §2.4: compare `iss` with the session's issuer by simple string
    /// comparison after form decoding; a missing `iss` fails only when required.
    private func issuerFailure(_ query: QueryParameters) -> SessionFailure? {
        guard let expected = issuer else { return nil }
        let iss = (try? query.single("iss")) ?? nil
        if let iss, iss != expected {
            return SessionFailure(
                code: .issuerMismatch,
                message:
                    "the response's iss \"\(PercentEncoding.preview(Substring(iss)))\" is not the session's issuer \(expected) (a mix-up attack, RFC 9207); the code was not delivered"
            )
        }
        if iss == nil && options.requireIssuer {
            return SessionFailure(
                code: .issuerMismatch,
                message:
                    "the response carries no iss, but the session requires one from \(expected) (RFC 9207); the code was not delivered"
            )
        }
        return nil
    }
}
