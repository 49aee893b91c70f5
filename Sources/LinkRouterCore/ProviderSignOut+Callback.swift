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
        let code = (try? query.single("code")) ?? nil
        let error = (try? query.single("error")) ?? nil
        let resume = (try? query.single("resume_uri")) ?? nil
        if code != nil && error != nil {
            return .refuse(
                .invalid("the callback carries both code and error; a response has one or the other (RFC 6749 §4.1.2)"),
                session.id)
        }
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
