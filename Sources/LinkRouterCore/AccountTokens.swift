/// What the daemon knows of one account's tokens (`Router.accountTokens`).
/// Memory is a cache of the keyring for the daemon's life (or, with
/// `store=memory`, the only copy); `flight` is the one read, refresh or write
/// under way, which every caller for the account waits on: a rotating
/// refresh token is spent once, never by two callers at the same time.
public struct AccountTokens: Sendable, Equatable {
    public var tokens: TokenSet?
    /// Whether the keyring has been read (for `store=memory`, always).
    public var loaded: Bool
    public var flight: OperationID?
    /// Why the last keyring write failed: the tokens are in memory only until a write works.
    public var unsaved: String?
    /// Refreshes in a row the provider failed (unreachable, 5xx; never a
    /// refusal of the token), and when the next may be tried: a provider that
    /// is down is not asked again at every call (`backoff`).
    public var failures: Int
    public var retryAt: Int64?
    /// Why the last refresh failed, for callers answered while it backs off.
    public var lastFailure: String?
    /// Whether the keyring's default collection was locked at the last keyring call (nil: not asked yet).
    public var keyringLocked: Bool?

    public init(tokens: TokenSet? = nil, loaded: Bool = false, flight: OperationID? = nil, unsaved: String? = nil) {
        self.tokens = tokens
        self.loaded = loaded
        self.flight = flight
        self.unsaved = unsaved
        failures = 0
    }

    /// Seconds before the next refresh after `failures` failed in a row: 5, 10, 20, … at most 300.
    public static func backoff(after failures: Int) -> Int64 { min(300, 5 << Int64(min(max(failures, 1) - 1, 6))) }

    /// A refresh failed at `now`: the next waits.
    mutating func refreshFailed(_ why: String, now: Int64) {
        failures += 1
        retryAt = now + Self.backoff(after: failures)
        lastFailure = why
    }

    /// A refresh worked (or a sign-in replaced the set): the next is tried when needed.
    mutating func refreshWorked() {
        failures = 0
        retryAt = nil
        lastFailure = nil
    }

    /// The token of `kind` when it has `minValid` seconds left at `now`.
    func usable(_ kind: Account.TokenKind, minValid: Int64, now: Int64) -> Bool {
        guard let t = tokens else { return false }
        switch kind {
        case .access:
            return t.expiresAt.map { $0 - now >= minValid } ?? true
        case .id:
            guard t.idToken != nil else { return false }
            return (t.idTokenExpiresAt ?? t.expiresAt).map { $0 - now >= minValid } ?? true
        }
    }
}

/// `GetToken`'s answer: the account's token set, which token the caller
/// asked for, and a warning when the set is not yet in the keyring.
public struct TokenAnswer: Sendable, Equatable {
    public var tokens: TokenSet
    public var kind: Account.TokenKind
    public var warning: String?
    public init(tokens: TokenSet, kind: Account.TokenKind, warning: String? = nil) {
        self.tokens = tokens
        self.kind = kind
        self.warning = warning
    }
}

/// One account's read, refresh or write in progress, and how far it got.
public struct TokenFlight: Sendable, Equatable {
    public enum Stage: Sendable, Equatable {
        /// Reading the keyring (nothing in memory yet).
        case reading
        /// The issuer's metadata, for its token endpoint and keys.
        case discovering
        /// At the token endpoint with this refresh token.
        case refreshing(used: String)
        /// The new set going to the keyring before anyone gets it.
        case writing(TokenSet)
        /// The provider refused `used`: the keyring is read again in case
        /// another process refreshed meanwhile, before anything is forgotten.
        case rereading(used: String, refusal: RouterError)
        /// A sign-in that ended: the keyring forgets the spent tokens.
        case forgetting
    }

    public var key: AccountKey
    /// The account's declaration (nil for a login's write: it only writes).
    public var account: Account?
    public var stage: Stage
    public var metadata: ProviderMetadata?

    public init(key: AccountKey, account: Account?, stage: Stage, metadata: ProviderMetadata? = nil) {
        self.key = key
        self.account = account
        self.stage = stage
        self.metadata = metadata
    }
}

/// What the keyring answered (`Operation.keyringRead/Write/Delete`).
public enum KeyringAnswer: Sendable, Equatable {
    case tokens(TokenSet?)
    case written
    case deleted
}

/// A token to revoke at sign-out (RFC 7009): the refresh token when there
/// is one (revoking it ends the grant, and the provider SHOULD revoke its
/// access tokens with it, §2.1), else the access token.
public struct Revocation: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    public let account: AccountKey
    public let clientID: String
    public let token: String
    public let hint: String
    /// The account's revocation endpoint, for a provider whose metadata lists none.
    public let endpoint: String?

    public init?(_ account: Account, _ tokens: TokenSet) {
        self.account = account.key
        clientID = account.clientID
        endpoint = account.revocationEndpoint
        if let refresh = tokens.refreshToken, !refresh.isEmpty {
            token = refresh
            hint = "refresh_token"
        } else if !tokens.accessToken.isEmpty {
            token = tokens.accessToken
            hint = "access_token"
        } else {
            return nil
        }
    }

    /// Never the token: a revocation reaches log lines.
    public var description: String { "revocation of \(account.name)'s \(hint)" }
    public var debugDescription: String { description }
}

/// A stage names what it waits for, never the token it carries: stages reach log lines.
extension TokenFlight.Stage: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        switch self {
        case .reading: "reading"
        case .discovering: "discovering"
        case .refreshing: "refreshing"
        case .writing: "writing"
        case .rereading: "rereading"
        case .forgetting: "forgetting"
        }
    }
    public var debugDescription: String { description }
}
