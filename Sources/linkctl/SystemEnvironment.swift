import DBusKit
import LinkRouterCore
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

    /// The activation token a launcher gave linkctl (`XDG_ACTIVATION_TOKEN`, `DESKTOP_STARTUP_ID`), as
    /// `BeginSession` options, for those not given on the command line: the browser the login opens comes to the
    /// front with it (issue 45). A value that is no token is left out.
    static func activationOptions(besides given: [(String, DBusValue)]) -> [(String, DBusValue)] {
        [("activation_token", "XDG_ACTIVATION_TOKEN"), ("desktop_startup_id", "DESKTOP_STARTUP_ID")].compactMap {
            key, variable in
            guard !given.contains(where: { $0.0 == key }), let value = Environment.nonEmpty(variable),
                ActivationContext.isUsable(value)
            else { return nil }
            return (key, .string(value))
        }
    }
}
