/// An authorization-code login (RFC 6749 §4.1 with PKCE): what a session of
/// this flow must remember to match its callback and finish it. Only
/// code-flow sessions are indexed by state and by callback (`Router`).
public struct CodeFlow: Sendable, Equatable {
    /// Who made the authorize URL.
    public enum Source: String, Sendable, CaseIterable {
        /// The daemon built it (state, nonce and PKCE are its own).
        case builder
        /// The app's backend built it; the daemon tracks its state and holds no verifier.
        case adopted
        /// The daemon built a sign-out URL at the provider's `end_session_endpoint`
        /// (RP-Initiated Logout §2): the way back carries `state` only, and no code.
        case logout
    }

    public let source: Source
    public let state: String
    public let nonce: String?
    public var codeVerifier: String?
    /// The registered callbacks and the origin strings are shared between
    /// sessions that name the same ones (`Router.insert` interns them), so
    /// 10,000 sessions of one app hold one copy.
    public internal(set) var redirect: CallbackURI
    public internal(set) var appCallback: CallbackURI?
    /// `scheme://authority` of the authorization endpoint: `resume_uri` must be on it.
    public internal(set) var authorizationOrigin: String
    public internal(set) var resumeHosts: [String]
    public let resumePathPrefix: String?
    public let resumeMode: ResumeMode
    /// Desktop id of the browser that opened the login (resume goes back to it).
    public var browser: String?
    public internal(set) var issuer: String?
    public let requireIssuer: Bool
    /// Set when the daemon exchanges the code for tokens (boxed: most sessions do not).
    public var exchange: TokenExchange? { exchangeBox?.value }
    private var exchangeBox: Box<TokenExchange>?
    /// The session ended: its DPoP key is the account's now (or nobody's), not the stored session's.
    mutating func forgetDPoPKey() {
        guard let e = exchange, e.dpop != nil else { return }
        exchangeBox = Box(e.binding(nil))
    }

    /// `resume_uri` is opened at most once (threat model R2).
    public var resumeOpened: Bool

    public init(
        source: Source, state: String, nonce: String?, codeVerifier: String?, redirect: CallbackURI,
        appCallback: CallbackURI?,
        authorizationOrigin: String, resumeHosts: [String], resumePathPrefix: String?, resumeMode: ResumeMode,
        browser: String?, issuer: String?, requireIssuer: Bool, exchange: TokenExchange? = nil,
        resumeOpened: Bool = false
    ) {
        self.source = source
        self.state = state
        self.nonce = nonce
        self.codeVerifier = codeVerifier
        self.redirect = redirect
        self.appCallback = appCallback
        self.authorizationOrigin = authorizationOrigin
        self.resumeHosts = resumeHosts
        self.resumePathPrefix = resumePathPrefix
        self.resumeMode = resumeMode
        self.browser = browser
        self.issuer = issuer
        self.requireIssuer = requireIssuer
        self.exchangeBox = exchange.map(Box.init)
        self.resumeOpened = resumeOpened
    }
}
