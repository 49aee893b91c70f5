/// What `Logout` answers of the provider's side of a sign-out. The daemon has
/// forgotten the tokens whatever the provider says, but a refresh token the
/// provider still honours is a sign-in that goes on there: a person told
/// only "signed out" would take it to be over. The keys are the contract
/// between the daemon (which writes them) and linkctl (which reads them).
public enum SignOutOutcome: Sendable, Equatable {
    /// The provider took the revocation (RFC 7009) of this token (`refresh_token`, else `access_token`).
    case revoked(hint: String)
    /// Neither the provider's metadata nor the account names a revocation endpoint.
    case notOffered
    /// The revocation was asked for and did not happen: why.
    case failed(String)
    /// The daemon held no token of the account: nothing to revoke.
    case nothingHeld

    public static let revocationKey = "revocation"
    public static let hintKey = "token_type_hint"
    public static let messageKey = "message"

    /// The `revocation` word: `revoked`, `not-offered`, `failed` or `none`.
    public var word: String {
        switch self {
        case .revoked: "revoked"
        case .notOffered: "not-offered"
        case .failed: "failed"
        case .nothingHeld: "none"
        }
    }

    /// The answer's entries (all strings).
    public var entries: [(String, String)] {
        var out = [(Self.revocationKey, word)]
        switch self {
        case .revoked(let hint): out.append((Self.hintKey, hint))
        case .failed(let why): out.append((Self.messageKey, why))
        case .notOffered, .nothingHeld: break
        }
        return out
    }

    /// The outcome an answer's entries name; nil for a word this version does not know.
    public init?(entries: [String: String]) {
        switch entries[Self.revocationKey] {
        case "revoked": self = .revoked(hint: entries[Self.hintKey] ?? "refresh_token")
        case "not-offered": self = .notOffered
        case "failed": self = .failed(entries[Self.messageKey] ?? "the provider did not say why")
        case "none": self = .nothingHeld
        default: return nil
        }
    }

    /// What it means for the person, after "Signed out of NAME here".
    public var sentence: String {
        switch self {
        case .revoked(let hint):
            "its \(hint == "refresh_token" ? "refresh token" : "access token") was revoked at the provider."
        case .notOffered:
            "its provider offers no revocation, so the refresh token stays valid there until it expires (the provider did not say when); `linkctl logout NAME --at-provider` ends the sign-in there."
        case .failed(let why):
            "the provider did not revoke its refresh token (\(why)), which stays valid there until it expires; `linkctl logout NAME --at-provider` ends the sign-in there."
        case .nothingHeld:
            "no token was held, so there was nothing to revoke at the provider."
        }
    }
}
