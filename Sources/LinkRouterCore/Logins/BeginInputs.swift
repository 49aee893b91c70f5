/// What a `BeginSession` needs from outside the core, gathered by the daemon
/// before it asks the core anything: fresh random secrets (OpenSSL), the
/// browser the login would open in (the desktop's files), and the digest of
/// the caller's claim token. Reading them opens nothing; what they are used
/// for (a listener, a row, a browser) is named by the transition.
public struct BeginInputs: Sendable, Equatable {
    /// Drawn for every call; a failure is refused, never replaced (threat model S8).
    public var secrets: Result<SessionSecrets, RouterError>
    /// The browser's desktop id, or why there is none; nil with `open_browser=false`.
    public var browser: Result<String, RouterError>?
    /// SHA-256 of `claim_token`, when one was given.
    public var claimTokenDigest: [UInt8]?

    public init(
        secrets: Result<SessionSecrets, RouterError>, browser: Result<String, RouterError>?, claimTokenDigest: [UInt8]?
    ) {
        self.secrets = secrets
        self.browser = browser
        self.claimTokenDigest = claimTokenDigest
    }
}
