public import Freedesktop
import LinkRouterCore
import SystemKit

/// Why a browser could not be started.
public struct LaunchError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Opens a URL through a browser's own desktop entry: the Exec line expanded
/// by the spec's rules, started without a shell, detached, with the caller's
/// environment.
public enum BrowserLauncher {
    /// Set in every browser linkrouter starts: if that "browser" hands the
    /// link straight back to `linkctl open`, linkctl sees it and stops the loop.
    public static let hopVariable = LinkIntake.hopVariable

    /// How the browser process comes to be.
    public enum Method: Sendable, Equatable {
        /// `posix_spawn` in a new session: for linkctl, and a daemon run by hand or by D-Bus.
        case spawn
        /// `systemd-run --user`: the user manager starts the browser as a unit of
        /// its own, so it does not inherit the daemon's sandbox (NoNewPrivileges,
        /// seccomp filters, MemoryDenyWriteExecute would break a browser's own
        /// sandbox and JIT).
        case systemdRun(String)

        /// `.systemdRun` when this process is a systemd service (systemd sets
        /// `INVOCATION_ID`) and `systemd-run` is installed; `.spawn` otherwise.
        public static func forThisProcess() -> Method {
            if Environment.nonEmpty("INVOCATION_ID") != nil, let tool = FileSystem.findExecutable("systemd-run") {
                return .systemdRun(tool)
            }
            return .spawn
        }
    }

    /// The argv that starts an entry on a URL by `method`, with `variables`
    /// set in its environment (systemd-run starts it from the user manager's
    /// environment, so they are passed explicitly there).
    public static func command(
        _ argv: [String], entry: DesktopEntry, method: Method, variables: [String] = [hopVariable + "=1"]
    ) -> [String] {
        switch method {
        case .spawn:
            return argv
        case .systemdRun(let tool):
            return [tool, "--user", "--quiet", "--collect", "--no-block"] + variables.map { "--setenv=" + $0 }
                + ["--description=linkrouter: \(entry.id)", "--"] + argv
        }
    }

    /// Starts a browser on `url`; it is marked (`hopVariable`) so that a link it
    /// hands straight back to linkctl is recognised as a loop.
    @discardableResult
    public static func open(
        _ url: String, with entry: DesktopEntry, environment: [String]? = nil, method: Method = .spawn,
        variables: [String] = []
    ) throws(LaunchError) -> Int32 {
        try launch(
            url, with: entry, environment: environment, method: method, variables: [hopVariable + "=1"] + variables)
    }

    /// The variables a launcher hands an activation token in: never inherited (a token is for the one launch it
    /// was given for), set only when the launch is given one.
    static let tokenVariables = ["XDG_ACTIVATION_TOKEN", "DESKTOP_STARTUP_ID"]

    /// Starts any entry on `url` through its `Exec` line, with `variables` added
    /// to its environment (an app gets its activation token this way, and no
    /// hop mark: an app may rightly open web links through linkrouter later).
    @discardableResult
    public static func launch(
        _ url: String, with entry: DesktopEntry, environment: [String]? = nil, method: Method = .spawn,
        variables: [String]
    ) throws(LaunchError) -> Int32 {
        guard entry.isLaunchable else { throw LaunchError("\(entry.id) is not a launchable application entry") }
        guard !OwnEntries.isOwn(entry) else {
            throw LaunchError("\(entry.id) is linkrouter itself; refusing to hand a link back to it (that would loop)")
        }
        if let tryExec = entry.tryExec, FileSystem.findExecutable(tryExec) == nil {
            throw LaunchError("\(entry.id) names TryExec=\(tryExec), which is not installed")
        }
        let argv: [String]
        do { argv = try entry.commandLine(opening: url) } catch {
            throw LaunchError("\(entry.id) has an Exec line that cannot be used: \(error.description)")
        }
        var env = environment ?? Environment.entries()
        env.removeAll { v in v.hasPrefix(hopVariable + "=") || tokenVariables.contains { v.hasPrefix($0 + "=") } }
        for v in variables {
            let name = v.prefix { $0 != "=" }
            env.removeAll { $0.hasPrefix(name + "=") }
            env.append(v)
        }
        do {
            return try Subprocess.spawn(
                command(argv, entry: entry, method: method, variables: variables), environment: env, detached: true,
                stdin: .null)
        } catch {
            throw LaunchError("cannot start \(entry.id) (\(argv[0])): \(error.reason)")
        }
    }
}
