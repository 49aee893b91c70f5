/// What a failed refresh means for the account: the provider refused the
/// refresh token (the sign-in is over, once the keyring was read again), the
/// provider is in passing trouble (kept, and tried again after a backoff), or
/// the daemon never asked it (no room for another request: kept, and not
/// counted against the provider). pizauth's rule: only no answer, 408, 429
/// and 5xx are passing; a provider that refuses a reused one-use refresh
/// token with an empty 400 (Glewlwyd) has refused it for good.
enum RefreshRefusal {
    /// The provider refused the refresh token: `invalid_grant` or `unauthorized_client` whatever the status, or any
    /// other 4xx answer but 408 and 429, with or without a body.
    /// A refused DPoP proof (`invalid_dpop_proof`, or a `use_dpop_nonce` still unmet, RFC 9449 §5, §8) says nothing of
    /// the refresh token: passing (a provider whose clock is behind the daemon's refuses a proof as "from the future"
    /// until it catches up; signing the person out for it would lose a good sign-in).
    static func endsSignIn(_ failure: SessionFailure) -> Bool {
        if failure.providerError == "invalid_dpop_proof" || failure.providerError == "use_dpop_nonce" { return false }
        if failure.providerError == "invalid_grant" || failure.providerError == "unauthorized_client" { return true }
        guard let status = failure.httpStatus else { return false }
        return (400..<500).contains(status) && status != 408 && status != 429
    }

    /// The error with which the provider refused what a narrower token's refresh asked for, not the refresh token:
    /// `invalid_scope` (RFC 6749 §5.2: the scope asked) or `invalid_target` (RFC 8707 §2: the resource asked;
    /// django-oauth-toolkit 3.4.1 answers it for a resource its refresh token is not for); nil for anything else.
    static func refusesTarget(_ failure: SessionFailure) -> String? {
        guard let error = failure.providerError, error == "invalid_scope" || error == "invalid_target" else {
            return nil
        }
        return error
    }

    /// A failure of the daemon's own, before anything reached the provider (no room for another request, a DPoP key
    /// it could not use): not the provider's trouble, so it does not push the next refresh back.
    static func isLocal(_ code: RouterError.Code) -> Bool {
        code == .limitsExceeded || code == .internalError
    }
}
