/// The random values a session is made with. The daemon draws them from
/// the kernel's CSPRNG (`OpenSSLKit.Random`); the core only checks and uses them, so it stays pure.
public struct SessionSecrets: Sendable, Equatable {
    public var id: SessionID
    public var state: String
    public var nonce: String
    /// Nil when the client keeps its own verifier (`code_challenge` option).
    public var codeVerifier: String?
    public var codeChallenge: String?
    /// A fresh ES256 key, drawn for an account's login: its tokens are bound to it when the account's `dpop` says so
    /// (RFC 9449).
    public var dpopKey: DPoPKey?

    public init(
        id: SessionID, state: String, nonce: String, codeVerifier: String?, codeChallenge: String?,
        dpopKey: DPoPKey? = nil
    ) {
        self.dpopKey = dpopKey
        self.id = id
        self.state = state
        self.nonce = nonce
        self.codeVerifier = codeVerifier
        self.codeChallenge = codeChallenge
    }
}
