/// When a D-Bus error means "no daemon answered" rather than "the daemon said
/// no", and what linkctl says then: one rule for the full linkctl and its
/// front (`LinkctlLayout`), which compiles this file as it is.
public enum DaemonReachability {
    /// Error names that mean no daemon answered: no bus, nobody owns the name,
    /// activation failed (`…Error.Spawn.*`), or no answer in time.
    public static func meansUnreachable(_ errorName: String) -> Bool {
        switch errorName {
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NoReply",
            "org.freedesktop.DBus.Error.Disconnected", "org.freedesktop.DBus.Error.NameHasNoOwner",
            "org.freedesktop.DBus.Error.TimedOut", "org.freedesktop.DBus.Error.Timeout",
            "org.freedesktop.DBus.Error.NoServer", "org.freedesktop.DBus.Error.FileNotFound":
            return true
        default:
            return errorName.hasPrefix("org.freedesktop.DBus.Error.Spawn.")
        }
    }

    /// Error names that mean the call went out and no answer came: the daemon may have it (a stall past the
    /// deadline, a daemon that died with the call unanswered). A link is then never sent or opened again by
    /// linkctl: it is queued with its `ClickID`, which the daemon routes once (`ClickLedger`).
    public static func mayHaveArrived(_ errorName: String) -> Bool {
        switch errorName {
        case "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Disconnected",
            "org.freedesktop.DBus.Error.TimedOut", "org.freedesktop.DBus.Error.Timeout":
            return true
        default:
            return false
        }
    }

    /// What linkctl says when no daemon answered; `detail` is the bus's own message, `daemon` how to run the
    /// daemon by hand (`daemonCommand`).
    public static func unreachable(_ detail: String, daemon: String = "linkrouterd") -> String {
        "linkrouterd is not reachable (" + detail
            + "); start it: systemctl --user start linkrouterd (after linkctl install), or run " + daemon
            + " in a terminal"
    }

    /// How to run the daemon by hand: `linkrouterd` where the shell finds it, else the one beside linkctl (a build
    /// directory, which is not on `PATH`: "run linkrouterd" would only say "command not found").
    public static func daemonCommand(onPath: Bool, besideLinkctl: String?) -> String {
        guard !onPath, let besideLinkctl else { return "linkrouterd" }
        return besideLinkctl
    }

    /// Set by the front when it hands `open` to the full linkctl after its call
    /// went out and no daemon answered (the bus's message is the value): the
    /// full linkctl then goes straight to what it does without a daemon and
    /// does not send the link a second time.
    public static let frontFoundUnreachable = "LINKCTL_DAEMON_UNREACHABLE"

    /// Set with it when the front's call went out and no answer came: the call's `ClickID.text`, which the full
    /// linkctl queues the link with (never opening it itself), so the daemon routes it once.
    public static let frontSentAs = "LINKCTL_SENT_AS"
}
