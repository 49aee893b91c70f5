/// The end of a session's login that exchanges something for tokens (a code login's
/// code, a device login's approved device code): one rule for both, so a
/// session completes (or fails) the same way whichever kind of login it is.
extension Session {
    /// The token endpoint answered and every check ran (a code login's
    /// exchange, or a device login's poll that brought tokens): the session
    /// completes with the tokens (the code and verifier are dropped), or fails
    /// with why. Nothing happens when the session no longer waits for them (it
    /// expired, or its owner cancelled it meanwhile). An account's login keeps its tokens.
    func exchanged(_ outcome: Result<TokenSet, SessionFailure>, _ turn: inout Turn) -> Transition {
        let now = turn.now
        let s = self
        switch s.login {
        case .code: guard s.status == .exchanging else { return Transition() }
        case .device: guard s.status == .pending else { return Transition() }
        case .signOut: return Transition()
        }
        var outcome = outcome
        if case .success(let tokens) = outcome, s.login.exchange?.dpop?.required == true,
            let why = DPoPBinding.unbound(tokens)
        {
            outcome = .failure(SessionFailure(code: .tokenExchangeFailed, message: why))
        }
        var done: Session
        switch outcome {
        case .success(let tokens):
            done = s.finished(.completed, failure: nil, now: now)
            done.login = done.login.withoutSecrets()
            var r =
                done.result
                ?? AuthorizationResult(
                    code: "", state: "", redirectURI: "", callbackURI: "", issuer: s.login.issuer, codeVerifier: nil,
                    nonce: nil)
            r.code = ""
            r.codeVerifier = nil
            // An account keeps its refresh token: it never leaves the daemon (its login's caller gets the rest).
            var handed = tokens
            if s.login.exchange?.account != nil { handed.refreshToken = nil }
            r.tokens = handed
            done.result = r
        case .failure(let failure):
            done = s.finished(.failed, failure: failure, now: now).wiped()
        }
        let what = done.status == .completed ? "tokens" : "failed: \(done.failure?.message ?? "")"
        var t = turn.core.finishing(done)
        t.ifWriteFails = .keepInMemory
        let grant = if case .device = s.login { "Device grant" } else { "Code exchange" }
        t.effects += [
            .checkpoint,
            .log(LogLine(done.status == .completed ? .info : .warning, "\(grant) for \(s.logTag): \(what)")),
        ]
        // An account's login: its tokens are kept for every later GetToken.
        if case .success(let tokens) = outcome, let e = s.login.exchange, let name = e.account,
            let issuer = s.login.issuer
        {
            let key = AccountKey(qualifiedName: name, issuer: issuer)
            t = t.then(AccountKeeper.keepTokens(tokens, for: key, inMemoryOnly: e.accountInMemory, &turn))
        }
        return t
    }
}
