public import Freedesktop
public import LinkRouterFiles
import SystemKit

/// Which browser opens what: the one rule for the daemon, `linkctl open`
/// (when no daemon answers) and `linkctl doctor`. Logins open in the browser
/// the app asked for or the user's default; web links go to the browser
/// recorded at install (`linkctl install --claim-https`), else the default.
/// Never linkrouter itself, never an entry that cannot be launched.
public struct Browsers {
    public let database: DesktopDatabase

    public init(database: DesktopDatabase = DesktopDatabase()) { self.database = database }

    /// The browser a login opens in: `requested`, or the default.
    public func forLogin(_ requested: String?) throws(LaunchError) -> DesktopEntry {
        guard let requested else {
            guard let entry = database.defaultBrowser() else {
                throw LaunchError(
                    "no default web browser is set (no x-scheme-handler/https handler besides linkrouter); set one with xdg-settings set default-web-browser, or pass the browser option"
                )
            }
            return entry
        }
        guard let entry = usable(requested) else {
            throw LaunchError(
                "the browser \(requested) has no launchable desktop entry in \(database.directories.dataSearchPath.map { $0 + "/applications" }.joined(separator: ":"))"
            )
        }
        return entry
    }

    /// The browser web links go to, and the recorded one when it is gone
    /// (the caller says so: a warning in the daemon, a check in doctor).
    public func forWebLinks(record: InstallRecord?) -> (entry: DesktopEntry?, recordedButGone: String?) {
        if let id = record?.browser {
            if let entry = usable(id) { return (entry, nil) }
            return (database.defaultBrowser(), id)
        }
        return (database.defaultBrowser(), nil)
    }

    /// The entry `id`, if it is installed, launchable and not linkrouter's.
    public func usable(_ id: String) -> DesktopEntry? {
        guard let entry = database.entry(id), entry.isLaunchable, !OwnEntries.isOwn(entry) else { return nil }
        return entry
    }
}
