/// Bounds on what any caller can make the daemon hold or parse (threat model U6, X2).
public struct Limits: Sendable, Equatable {
    /// Unfinished sessions one bus connection may hold at once.
    public var maxPendingPerOwner: Int
    /// Unfinished sessions in all.
    public var maxPendingTotal: Int
    /// Longest URI `Route` or the listener will parse.
    public var maxURIBytes: Int
    public var query: QueryParameters.Limits
    /// Longest string option (`client_id`, `redirect_uri`, …).
    public var maxOptionBytes: Int
    /// Longest adopted `authorize_url`.
    public var maxAuthorizeURLBytes: Int
    /// Most `extra_params` or `resume_hosts` entries.
    public var maxListEntries: Int
    /// Longest `ttl` a session may ask for, in seconds.
    public var maxTTL: UInt32
    /// Accounts one app may declare (`AddAccount`): each is a file and a keyring item.
    public var maxAccountsPerApp: Int
    /// How long a finished session keeps its result for its owner's `Wait`
    /// (until `Acknowledge`), and its record to tell a replay from a forgery, in seconds.
    public var gracePeriod: Int64
    /// Consent prompts up at once, in all and per app (issue 44: an app asking for a hundred audiences must not put a
    /// hundred prompts on the person's screen, nor crowd out another app's).
    public var maxPrompts = 8
    public var maxPromptsPerApp = 2
    /// Account calls (`GetToken`, `ListAccounts`, a sign-in by account…) held at once for one bus connection, and for
    /// one sandboxed app over all its connections: each holds memory until it is answered.
    public var maxHeldAccountCallsPerCaller = 64
    public var maxHeldAccountCallsPerApp = 256

    public init(
        maxPendingPerOwner: Int = 32, maxPendingTotal: Int = 1024, maxURIBytes: Int = 8192,
        query: QueryParameters.Limits = QueryParameters.Limits(), maxOptionBytes: Int = 2048,
        maxAuthorizeURLBytes: Int = 8192, maxListEntries: Int = 32, maxTTL: UInt32 = 3600,
        maxAccountsPerApp: Int = 32, gracePeriod: Int64 = 120
    ) {
        self.maxPendingPerOwner = maxPendingPerOwner
        self.maxPendingTotal = maxPendingTotal
        self.maxURIBytes = maxURIBytes
        self.query = query
        self.maxOptionBytes = maxOptionBytes
        self.maxAuthorizeURLBytes = maxAuthorizeURLBytes
        self.maxListEntries = maxListEntries
        self.maxTTL = maxTTL
        self.maxAccountsPerApp = maxAccountsPerApp
        self.gracePeriod = gracePeriod
    }
}
