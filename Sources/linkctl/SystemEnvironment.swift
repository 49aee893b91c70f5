import SystemKit

/// Environment variables linkctl reads.
enum SystemEnvironment {
    /// A claim token for `wait` and `cancel`, so it need not appear in argv (visible in ps).
    static var claimToken: String? { Environment.nonEmpty("LINKROUTER_CLAIM_TOKEN") }
}
