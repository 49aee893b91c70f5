/// A sign-out's way back (RP-Initiated Logout §3): the account's redirect,
/// exactly, with its `state` alone. An `error` fails it; a code or a
/// `resume_uri` is refused (a sign-out never carries one).
extension ProviderSignOut {
    func callback(_ uri: URIReference, _ query: QueryParameters, session: Session, now: Int64) -> RouteDecision {
        if let refusal = session.callbackRefusal(now: now) { return refusal }
        if let mismatch = redirect.mismatch(with: uri, query: query) {
            return .refuse(
                RouterError(
                    .callbackMismatch, "the callback does not match the session's registered redirect_uri: \(mismatch)"),
                session.id)
        }
        let response: CallbackResponse
        do { response = try CallbackResponse(query) } catch { return .refuse(error, session.id) }
        let (code, error, resume) = (response.code, response.error, response.resume)
        guard code == nil, resume == nil else {
            return .refuse(.invalid("a sign-out's way back carries state only, never a code or resume_uri"), session.id)
        }
        if let error {
            return .fail(
                session.providerFailure(
                    error, query: query, what: "the sign-out (the account is signed out here all the same)", now: now))
        }
        var done = session.finished(.completed, failure: nil, now: now)
        done.result = AuthorizationResult(
            code: "", state: state, redirectURI: redirect.string, callbackURI: uri.original, issuer: nil,
            codeVerifier: nil, nonce: nil)
        return .complete(done)
    }
}
