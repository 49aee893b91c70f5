/// The claim checks of OpenID Connect Core §3.1.3.7 (and §12.2 for a
/// refresh), made on claims whose signature already verified. Each failure
/// says which claim and why, and no token is handed out.
public enum IDTokenClaims {
    /// How far the daemon's clock may be from the provider's, in seconds.
    public static let clockSkew: Int64 = 120

    /// What the claims must match.
    public struct Expected: Sendable, Equatable {
        public var issuer: String
        public var clientID: String
        /// The session's nonce; nil for a refresh, where none was sent (§12.2).
        public var nonce: String?
        /// What the sign-in was asked to be (`acr_values`, `max_age`): its `acr` and `auth_time` must meet it.
        /// Nil for a refresh (§12.2: they say the first sign-in's, checked when it was made).
        public var stepUp: StepUp?
        public init(issuer: String, clientID: String, nonce: String?, stepUp: StepUp? = nil) {
            self.issuer = issuer
            self.clientID = clientID
            self.nonce = nonce
            self.stepUp = stepUp
        }
    }

    /// Checks `claims` at `now` (unix seconds); the subject on success.
    @discardableResult
    public static func check(_ claims: JSONValue, _ expected: Expected, now: Int64) throws(RouterError) -> String {
        func reject(_ why: String) -> RouterError {
            RouterError(.idTokenRejected, "the ID token \(why); no token was handed out")
        }
        guard case .object = claims else { throw reject("payload is not a JSON object") }
        guard let iss = claims["iss"]?.stringValue else { throw reject("has no iss") }
        guard iss == expected.issuer else {
            throw reject(
                "was issued by \"\(PercentEncoding.preview(Substring(iss)))\", not by \(expected.issuer) (iss must be identical)"
            )
        }
        guard let sub = claims["sub"]?.stringValue, !sub.isEmpty, sub.utf8.count <= 255 else {
            throw reject("has no sub of 1 to 255 characters")
        }
        // An identifier: a control character in it is no subject a person could be shown (issue 36: terminal escapes).
        guard !sub.unicodeScalars.contains(where: PrintableText.isControl) else {
            throw reject("has a sub with control characters")
        }
        let audiences: [String]
        switch claims["aud"] {
        case .string(let a)?: audiences = [a]
        case .array(let list)? where !list.isEmpty && list.allSatisfy({ $0.stringValue != nil }):
            audiences = list.compactMap(\.stringValue)
        default: throw reject("has no aud (a string or an array of strings)")
        }
        guard audiences.contains(expected.clientID) else {
            throw reject(
                "is meant for \(audiences.map { "\"\(PercentEncoding.preview(Substring($0)))\"" }.joined(separator: ", ")), not for this client (\(expected.clientID))"
            )
        }
        let azp = claims["azp"]
        if azp != nil || audiences.count > 1 {
            guard azp?.stringValue == expected.clientID else {
                throw reject(
                    azp == nil
                        ? "names several audiences but no azp" : "names another authorized party (azp) than this client"
                )
            }
        }
        guard let exp = claims["exp"]?.int64Value else { throw reject("has no exp") }
        guard now < exp + clockSkew else {
            throw reject("expired at \(exp), \(now - exp) s ago (clock skew allowed: \(clockSkew) s)")
        }
        guard let iat = claims["iat"]?.int64Value else { throw reject("has no iat") }
        guard iat <= now + clockSkew else {
            throw reject(
                "was issued \(iat - now) s in the future (clock skew allowed: \(clockSkew) s); check this machine's clock"
            )
        }
        if let nonce = expected.nonce {
            guard let got = claims["nonce"]?.stringValue else { throw reject("has no nonce, but the login sent one") }
            guard ConstantTime.equals(got, nonce) else {
                throw reject("carries another nonce than the one this login sent (a replayed or injected token)")
            }
        }
        // OpenID Connect Core §3.1.3.7 items 12 and 13: the class and the time asked for are checked, not trusted.
        if let stepUp = expected.stepUp,
            let why = stepUp.unmet(acr: claims["acr"]?.stringValue, authTime: claims["auth_time"]?.int64Value, now: now)
        {
            throw reject(
                "says the sign-in \(why): the provider did not sign the person in as asked (acr_values, max_age)")
        }
        return sub
    }
}
