/// How an account answers its callers: the token (and its proof) a waiter gets, and the words of each refusal.
extension AccountKeeper {
    /// A narrower token refused because the provider answered with a wider scope than asked (it does not narrow a
    /// refresh), and what to do instead; said with the scope as the caller asked it.
    static func widerRefusal(_ name: String, asked: String, answered: String) -> RouterError {
        RouterError(
            .tokenExchangeFailed,
            "\(name)'s provider answered a refresh for scope \"\(asked)\" with the wider \"\(answered)\": it does not narrow tokens, so none is handed out, and it is not asked again until the next sign-in; use the account's own token (linkctl token \(name)), or declare an account with the smaller scope (linkctl account add NAME --scope \"\(asked)\" …)"
        )
    }

    /// Why a token short of `min_valid` was not refreshed: the keyring is locked.
    static let lockedWhy =
        "the keyring is locked, so the token was not refreshed (a refresh now could not be kept); unlock the keyring"

    /// Why nothing is refreshed while the daemon stops.
    static let stoppingWhy = "linkrouterd is stopping, and refreshes nothing meanwhile; ask again in a moment"

    static func waitersAllServed(_ key: AccountKey, _ state: AccountKeeper, _ turn: inout Turn) -> Bool {
        turn.core.held.tokenWaits(of: key).allSatisfy {
            state.usable($0.wait.kind, minValid: $0.wait.minValid, now: turn.now, target: $0.wait.target)
        }
    }

    /// Each waiter gets a token it can use (with `anyLive`, or for a target of `liveFor`, the ones just refreshed, one
    /// not yet expired will do); a waiter whose target is in `refusals` that refusal; the others `refusal`, or stay
    /// (nil).
    static func answerWaiters(
        of key: AccountKey, state: AccountKeeper, refusal: RouterError?, anyLive: Bool = false,
        liveFor: [TokenTarget] = [], refusals: [TokenTarget: RouterError] = [:], warning: String? = nil,
        _ turn: inout Turn
    ) -> Transition {
        var t = Transition()
        for (op, w) in turn.core.held.tokenWaits(of: key) {
            let live = anyLive || liveFor.contains(w.target)
            if let refusal = state.stepUpRefusal(key, w.stepUp, now: turn.now) {
                // Read from the keyring (or refreshed) meanwhile: a sign-in that is not what the waiter asked for.
                t.effects.append(.answer(op, .refused(refusal)))
                t.core.append(.finish(op))
            } else if state.usable(w.kind, minValid: live ? 1 : w.minValid, now: turn.now, target: w.target),
                let tokens = state.set(for: w.target)
            {
                let reply = tokenReply(
                    key, tokens, kind: w.kind, proof: w.proof, warning: warning ?? state.unsaved.map(unsavedWarning),
                    target: w.target)
                t.effects.append(.answer(op, reply))
                t.core.append(.finish(op))
            } else if let refusal = refusals[w.target] ?? refusal {
                t.effects.append(.answer(op, .refused(refusal)))
                t.core.append(.finish(op))
            }
        }
        return t
    }

    /// Why `tokens` may not be used by `account`, whose `dpop=require` they do not meet (no key), or nil.
    static func unboundUnderRequire(_ account: Account, _ tokens: TokenSet) -> String? {
        guard account.dpop == .require, tokens.dpopKey == nil else { return nil }
        return "its tokens are not bound to a DPoP key and the account requires DPoP (dpop=require)"
    }

    /// A `GetToken`'s answer, or a `SignProof`'s: the proof of the tokens' key for the
    /// access token (the one asked about, if it is still the account's).
    static func tokenReply(
        _ key: AccountKey, _ tokens: TokenSet, kind: Account.TokenKind, proof: ProofRequest?, warning: String?,
        target: TokenTarget = TokenTarget()
    ) -> Transition.Reply {
        guard let proof else {
            var answer = TokenAnswer(tokens: tokens, kind: kind, warning: warning, target: target)
            answer.account = key.name
            answer.issuer = key.issuer
            return .token(answer)
        }
        guard let dpop = tokens.dpopKey else {
            return .refused(
                RouterError(
                    .noDPoPKey,
                    "\(key.name)'s tokens are not bound to a DPoP key (its dpop is off, or its provider offered no DPoP when it signed in): send the access token as a bearer token, or sign in again with dpop=require"
                ))
        }
        if let asked = proof.accessToken, !ConstantTime.equals(asked, tokens.accessToken) {
            return .refused(
                RouterError(
                    .staleToken,
                    "that access token is no longer \(key.name)'s (it was refreshed or refused since); ask GetToken again, then SignProof"
                ))
        }
        let plan = ProofPlan(
            key: dpop, method: proof.method, url: proof.url, nonce: proof.nonce, accessToken: tokens.accessToken)
        guard proof.withToken else { return .proof(plan) }
        // The token and the proof for it, from the same set in one answer: they cannot come apart.
        var answer = TokenAnswer(tokens: tokens, kind: .access, warning: warning, target: target)
        answer.account = key.name
        answer.issuer = key.issuer
        answer.proof = plan
        return .token(answer)
    }

    static func notSignedIn(_ key: AccountKey, _ why: String?) -> RouterError {
        RouterError(
            .notSignedIn,
            "\(key.name) is not signed in\(why.map { " (\($0))" } ?? ""); sign in with: linkctl login \(key.name)")
    }

    /// Why the sign-in these tokens came from does not meet `stepUp` (nil: it does, or none was asked, or there are
    /// no tokens), with the sign-in that asks for it.
    func stepUpRefusal(_ key: AccountKey, _ stepUp: StepUp?, now: Int64) -> RouterError? {
        guard let stepUp, let why = tokens?.unmet(stepUp, now: now) else { return nil }
        return RouterError(
            .stepUpRequired,
            "\(key.name)'s sign-in \(why); a token from it is not handed out for this request. Sign in again, asking for it: linkctl login \(key.name) \(stepUp.flags)"
        )
    }

    static func unknownAccount(_ name: String) -> RouterError {
        RouterError(
            .unknownAccount,
            "there is no account \(name) for this caller; linkctl accounts lists them, linkctl account add declares one"
        )
    }

    static func unsavedWarning(_ why: String) -> String {
        "the tokens are not in the keyring (\(why)); they last until linkrouterd stops"
    }
}
