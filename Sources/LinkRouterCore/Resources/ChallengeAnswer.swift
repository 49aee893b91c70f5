/// What a client does with a resource server's challenge to the token it
/// sent (`BearerChallenge`), once, never in a loop: `linkctl fetch` asks it,
/// and apps may too. A refused token is refreshed (it may have been revoked
/// or rotated); a scope the server wants is asked for together with what the
/// token had (RFC 6750 §3.1, the MCP authorization spec's step-up); a
/// stronger sign-in (RFC 9470) needs a person. Anything else is the server's
/// answer as it stands.
public enum ChallengeAnswer: Sendable, Equatable {
    /// `invalid_token`: the token is given back (`RejectToken`) and a fresh one asked for.
    case refresh
    /// `insufficient_scope`: a token for this scope, the union of what was held and what the server asks.
    case widen(scope: String)
    /// `insufficient_user_authentication`: a new sign-in with these `acr_values` and `max_age`.
    case stepUp(acrValues: String?, maxAge: Int64?)
    /// Nothing to answer with; the reason, for the person.
    case none(String)

    /// The answer to `challenge`, for a token that held `held` (its scope, if known).
    public static func to(_ challenge: BearerChallenge?, held: String?) -> ChallengeAnswer {
        guard let challenge else { return .none("the server sent no Bearer challenge") }
        switch challenge.error {
        case "invalid_token"?: return .refresh
        case "insufficient_scope"?:
            guard let asked = challenge.scope else {
                return .none("the server wants more scope (insufficient_scope) but does not say which")
            }
            var scopes = (held ?? "").split(separator: " ").map(String.init)
            for s in asked.split(separator: " ").map(String.init) where !scopes.contains(s) { scopes.append(s) }
            let union = scopes.joined(separator: " ")
            guard union != held else {
                return .none("the server wants scope \"\(asked)\", which the token already has")
            }
            return .widen(scope: union)
        case "insufficient_user_authentication"?:
            return .stepUp(acrValues: challenge.acrValues, maxAge: challenge.maxAge)
        case let other?: return .none("the server answered \(other)")
        case nil:
            // RFC 6750 §3.1: no error with no token sent; with one, a token the server will not take.
            return .refresh
        }
    }
}
