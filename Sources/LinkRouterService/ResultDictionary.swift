import DBusKit
import LinkRouterCore

/// `Wait`'s answer: the result as `a{sv}`, with optional keys left out when absent.
enum ResultDictionary {
    static func make(_ r: AuthorizationResult) -> DBusValue {
        if let tokens = r.tokens {
            var entries = tokenEntries(tokens)
            // A device login has neither (no callback).
            if !r.state.isEmpty { entries += [("state", .string(r.state)), ("redirect_uri", .string(r.redirectURI))] }
            if let v = r.issuer { entries.append(("iss", .string(v))) }
            if let v = r.nonce { entries.append(("nonce", .string(v))) }
            if let v = r.activationToken { entries.append(("activation_token", .string(v))) }
            return .vardict(entries)
        }
        // A sign-out at the provider comes back with no code.
        var entries: [(String, DBusValue)] = r.code.isEmpty ? [] : [("code", .string(r.code))]
        entries += [
            ("state", .string(r.state)), ("redirect_uri", .string(r.redirectURI)),
            ("callback_uri", .string(r.callbackURI)),
        ]
        if let v = r.codeVerifier { entries.append(("code_verifier", .string(v))) }
        if let v = r.issuer { entries.append(("iss", .string(v))) }
        if let v = r.nonce { entries.append(("nonce", .string(v))) }
        if let v = r.activationToken { entries.append(("activation_token", .string(v))) }
        return .vardict(entries)
    }

    /// `RefreshTokens`' answer.
    static func make(_ tokens: TokenSet) -> DBusValue { .vardict(tokenEntries(tokens)) }

    /// `GetToken`'s answer: the one token asked for and its life; the refresh
    /// token never leaves the daemon.
    /// `proof`: the DPoP proof signed for this answer's access token (`dpop_method`), as `dpop_proof`.
    static func make(_ a: TokenAnswer, proof: String? = nil) -> DBusValue {
        let t = a.tokens
        typealias K = TokenReplyKeys
        var entries: [(String, DBusValue)] = [(K.kind, .string(a.kind.rawValue))]
        switch a.kind {
        case .access:
            entries += [(K.token, .string(t.accessToken)), (K.tokenType, .string(t.tokenType))]
            if let v = t.expiresAt { entries.append((K.expiresAt, .int64(v))) }
        case .id:
            entries += [(K.token, .string(t.idToken ?? "")), (K.tokenType, .string("id_token"))]
            if let v = t.idTokenExpiresAt ?? t.expiresAt { entries.append((K.expiresAt, .int64(v))) }
        }
        if let v = t.scope { entries.append((K.scope, .string(v))) }
        // A narrower token: what it is for besides its scope.
        if !a.target.resources.isEmpty { entries.append((K.resource, .stringArray(a.target.resources))) }
        if let v = a.target.audience { entries.append((K.audience, .string(v))) }
        if let v = t.subject { entries.append((K.subject, .string(v))) }
        if !a.account.isEmpty { entries.append((K.account, .string(a.account))) }
        if let v = a.warning { entries.append((K.warning, .string(v))) }
        if let proof { entries.append((K.dpopProof, .string(proof))) }
        return .vardict(entries)
    }

    /// The tokens as `a{sv}`: `expires_at` is `x` (unix seconds), `claims` the verified ID token's JSON.
    static func tokenEntries(_ t: TokenSet) -> [(String, DBusValue)] {
        var entries: [(String, DBusValue)] = [
            ("access_token", .string(t.accessToken)), ("token_type", .string(t.tokenType)),
        ]
        if let v = t.expiresAt { entries.append(("expires_at", .int64(v))) }
        if let v = t.refreshToken { entries.append(("refresh_token", .string(v))) }
        if let v = t.idToken { entries.append(("id_token", .string(v))) }
        if let v = t.scope { entries.append(("scope", .string(v))) }
        if let v = t.claims { entries.append(("claims", .string(v))) }
        if let v = t.subject { entries.append(("sub", .string(v))) }
        if let v = t.name { entries.append(("name", .string(v))) }
        if let v = t.email { entries.append(("email", .string(v))) }
        return entries
    }
}
