/// What every browser login's callback is checked for before its own rules
/// (`CodeLogin+Callback.swift`, `ProviderSignOut+Callback.swift`): the session
/// still waits for one, and has not expired.
extension Session {
    /// Why this session takes no callback now, or nil.
    func callbackRefusal(now: Int64) -> RouteDecision? {
        switch status {
        case .completed, .failed:
            return .refuse(
                RouterError(
                    .replayed,
                    "this session already \(status.rawValue); a state is used once and later callbacks with it are refused"
                ),
                id)
        case .exchanging:
            return .refuse(
                RouterError(
                    .replayed,
                    "this session already has its code, which is being exchanged for tokens; a state is used once and later callbacks with it are refused"
                ), id)
        case .expired:
            return .refuse(RouterError(.expired, "this session expired; begin a new one"), id)
        case .cancelled:
            return .refuse(RouterError(.cancelled, "this session was cancelled"), id)
        case .pending, .resumed:
            break
        }
        if now >= expiresAt { return .refuse(RouterError(.expired, "this session expired; begin a new one"), id) }
        return nil
    }

    /// The failed copy for a provider `error=` (threat model S6: only the OAuth
    /// charset is passed on; `error_uri` is never opened). `what` names what was refused.
    func providerFailure(_ error: String, query: QueryParameters, what: String, now: Int64) -> Session {
        let code = OAuthText.isErrorText(error) ? error : "invalid_response"
        let description = OAuthText.sanitizedDescription((try? query.single("error_description")) ?? nil)
        var message = "the provider refused \(what): \(code)"
        if let description { message += " (\(description))" }
        return finished(
            .failed,
            failure: SessionFailure(
                code: .authorizationFailed, providerError: code, providerDescription: description, message: message),
            now: now)
    }
}
