public import Freedesktop
import SystemKit

/// Why a browser could not be started.
public struct LaunchError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Opens a URL through a browser's own desktop entry: the Exec line expanded
/// by the spec's rules, started by `posix_spawn` (no shell), in its own
/// session so it outlives the caller, with the caller's environment.
public enum BrowserLauncher {
    /// Set in every browser linkrouter starts: if that "browser" hands the
    /// link straight back to `linkctl open`, linkctl sees it and stops the loop.
    public static let hopVariable = "LINKROUTER_FORWARDED"

    @discardableResult
    public static func open(_ url: String, with entry: DesktopEntry, environment: [String]? = nil) throws(LaunchError) -> Int32 {
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
        env.removeAll { $0.hasPrefix(hopVariable + "=") }
        env.append(hopVariable + "=1")
        do {
            return try Subprocess.spawn(argv, environment: env, detached: true, stdin: .null)
        } catch {
            throw LaunchError("cannot start \(entry.id) (\(argv[0])): \(error.reason)")
        }
    }
}
