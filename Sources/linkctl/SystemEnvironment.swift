import SystemKit

/// Environment variables linkctl reads.
enum SystemEnvironment {
    /// A claim token for `wait` and `cancel`, so it need not appear in argv (visible in ps).
    static var claimToken: String? { Environment.nonEmpty("LINKROUTER_CLAIM_TOKEN") }

    /// No browser can open here: no display (neither X11's nor Wayland's), or a
    /// session over SSH, whose display (if forwarded) is not where the person is.
    static var noBrowserHere: Bool {
        Environment.nonEmpty("SSH_CONNECTION") != nil || Environment.nonEmpty("SSH_TTY") != nil
            || (Environment.nonEmpty("DISPLAY") == nil && Environment.nonEmpty("WAYLAND_DISPLAY") == nil)
    }
}
