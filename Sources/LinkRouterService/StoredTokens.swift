import JSONKit
import LinkRouterCore

/// An account's tokens as the keyring keeps them: a small versioned JSON
/// object (the secret), never attributes (those are readable while locked).
enum StoredTokens {
    static let version: Int64 = 1

    static func encode(_ t: TokenSet) -> String {
        var members: [(String, JSONValue)] = [
            ("v", .integer(version)), ("access_token", .string(t.accessToken)), ("token_type", .string(t.tokenType)),
        ]
        func add(_ key: String, _ value: String?) { if let value { members.append((key, .string(value))) } }
        func add(_ key: String, _ value: Int64?) { if let value { members.append((key, .integer(value))) } }
        add("expires_at", t.expiresAt)
        add("refresh_token", t.refreshToken)
        add("id_token", t.idToken)
        add("id_token_expires_at", t.idTokenExpiresAt)
        add("scope", t.scope)
        add("claims", t.claims)
        add("sub", t.subject)
        add("name", t.name)
        add("email", t.email)
        add("acr", t.acr)
        add("auth_time", t.authTime)
        // The key the tokens are bound to: a bound refresh token is worth nothing without it (RFC 9449 §5).
        add("dpop_jwk", t.dpopKey?.privateJWK)
        add("dpop_jkt", t.dpopKey?.thumbprint)
        return JSONParser.encode(.object(members))
    }

    /// Nil when the text is not a set this daemon wrote (another version, or damage).
    static func decode(_ text: String) -> TokenSet? {
        guard let v = try? JSONParser.parse(Array(text.utf8)), v["v"]?.int64Value == version,
            let access = v["access_token"]?.stringValue, let type = v["token_type"]?.stringValue
        else { return nil }
        var t = TokenSet(
            accessToken: access, tokenType: type, expiresAt: v["expires_at"]?.int64Value,
            refreshToken: v["refresh_token"]?.stringValue,
            idToken: v["id_token"]?.stringValue, scope: v["scope"]?.stringValue, claims: v["claims"]?.stringValue)
        t.idTokenExpiresAt = v["id_token_expires_at"]?.int64Value
        t.subject = v["sub"]?.stringValue
        t.name = v["name"]?.stringValue
        t.email = v["email"]?.stringValue
        t.acr = v["acr"]?.stringValue
        t.authTime = v["auth_time"]?.int64Value
        if let jwk = v["dpop_jwk"]?.stringValue {
            // A key that does not read back is damage: the set is not used (its refresh would fail unproved).
            guard let jkt = v["dpop_jkt"]?.stringValue, let key = DPoPKey(privateJWK: jwk, thumbprint: jkt) else {
                return nil
            }
            t.dpopKey = key
        }
        return t
    }
}
