/// What `Logout` answers of the provider's side of a sign-out. The daemon has
/// forgotten the tokens whatever the provider says, but a refresh token the
/// provider still honours is a sign-in that goes on there: a person told
/// only "signed out" would take it to be over. The keys are the contract
/// between the daemon (which writes them) and linkctl (which reads them).
public enum SignOutOutcome: Sendable, Equatable {
    /// The provider took the revocation (RFC 7009) of this token (`refresh_token`, else `access_token`).
    case revoked(hint: String)
    /// Neither the provider's metadata nor the account names a revocation endpoint. `endSession`: whether its
    /// metadata names an `end_session_endpoint`, where `linkctl logout NAME --at-provider` can end the sign-in.
    case notOffered(endSession: Bool)
    /// The revocation was asked for and did not happen: why (and whether the provider has an end-session endpoint).
    case failed(String, endSession: Bool)
    /// The daemon held no token of the account: nothing to revoke.
    case nothingHeld

    public static let revocationKey = "revocation"
    public static let hintKey = "token_type_hint"
    public static let messageKey = "message"
    /// `yes` when the provider's metadata names an `end_session_endpoint` (RP-Initiated Logout).
    public static let endSessionKey = "end_session"

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
        case .failed(let why, let endSession):
            out.append((Self.messageKey, why))
            out.append((Self.endSessionKey, endSession ? "yes" : "no"))
        case .notOffered(let endSession): out.append((Self.endSessionKey, endSession ? "yes" : "no"))
        case .nothingHeld: break
        }
        return out
    }

    /// The outcome an answer's entries name; nil for a word this version does not know.
    public init?(entries: [String: String]) {
        switch entries[Self.revocationKey] {
        case "revoked": self = .revoked(hint: entries[Self.hintKey] ?? "refresh_token")
        case "not-offered": self = .notOffered(endSession: entries[Self.endSessionKey] == "yes")
        case "failed":
            self = .failed(
                entries[Self.messageKey] ?? "the provider did not say why",
                endSession: entries[Self.endSessionKey] == "yes")
        case "none": self = .nothingHeld
        default: return nil
        }
    }

    /// What it means for the person, after "Signed out of NAME here".
    public var sentence: String {
        switch self {
        case .revoked(let hint):
            "its \(hint == "refresh_token" ? "refresh token" : "access token") was revoked at the provider."
        case .notOffered(let endSession):
            "its provider offers no revocation, so the refresh token stays valid there until it expires (the provider did not say when); "
                + Self.atProvider(endSession)
        case .failed(let why, let endSession):
            "the provider did not revoke its refresh token (\(why)), which stays valid there until it expires; "
                + Self.atProvider(endSession)
        case .nothingHeld:
            "no token was held, so there was nothing to revoke at the provider."
        }
    }

    /// The way to end the sign-in at the provider, where there is one: `--at-provider` needs an end-session endpoint.
    private static func atProvider(_ endSession: Bool) -> String {
        endSession
            ? "`linkctl logout NAME --at-provider` ends the sign-in there."
            : "its provider offers no sign-out page either (no end_session_endpoint), so only the provider's own account pages can end the sign-in there."
    }
}
