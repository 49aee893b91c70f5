// Compiled into linkctl and, as it is, into its front (Sources/LinkctlFront/Shared, Embedded Swift), where
// LinkRouterCore's files are part of the module itself.
#if !hasFeature(Embedded)
    import LinkRouterCore
#endif

/// linkctl's exit statuses (documented in README and `linkctl --help`).
enum ExitCode {
    static let ok: Int32 = 0
    /// The daemon refused (unknown state, mismatch, invalid option…), or a check failed.
    static let refused: Int32 = 1
    /// The login ended without a code (or tokens): the provider's error or refusal at the
    /// token endpoint, an ID token that failed its checks, expiry, cancellation.
    static let loginFailed: Int32 = 2
    /// `wait`/`login` gave up after `--timeout`; the session goes on.
    static let timeout: Int32 = 3
    /// `token NAME`: the account is not signed in (`linkctl login NAME`), or not in the way asked (a step-up).
    static let notSignedIn: Int32 = 4
    /// `token NAME`: the keyring is locked, absent or failed; the account may still be signed in.
    static let keyring: Int32 = 5
    /// Bad command line (sysexits EX_USAGE).
    static let usage: Int32 = 64
    /// No daemon could be reached (EX_UNAVAILABLE).
    static let unavailable: Int32 = 69
    /// A file could not be written (EX_CANTCREAT).
    static let cantCreate: Int32 = 73

    /// The status a command ends with when the daemon refused with `errorName`.
    static func forRefusal(_ errorName: String) -> Int32 {
        guard errorName.hasPrefix(BusNames.errorPrefix),
            let code = RouterError.Code(rawValue: String(errorName.dropFirst(BusNames.errorPrefix.count)))
        else { return refused }
        switch code {
        case .authorizationFailed, .expired, .cancelled, .issuerMismatch, .alreadyDelivered, .tokenExchangeFailed,
            .idTokenRejected:
            return loginFailed
        case .timeout: return timeout
        case .notSignedIn, .stepUpRequired: return notSignedIn
        case .keyringLocked, .noKeyring, .keyringFailed: return keyring
        default: return refused
        }
    }
}
