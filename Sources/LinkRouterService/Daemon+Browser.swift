import DesktopIntegration
import Freedesktop
import LinkRouterCore
import SystemKit

/// A browser's desktop entry, by id.
struct DesktopEntryReference {
    let entry: DesktopEntry
    var id: String { entry.id }
}

/// Which browser opens what. Logins open in the browser the app asked for
/// or the user's default; web links go to the browser recorded at install
/// (`linkctl install --claim-https`), else the default that is not linkrouter.
extension Daemon {
    var database: DesktopDatabase { DesktopDatabase() }

    var installRecordPath: String { InstallRecord.path(stateDirectory: config.stateDirectory) }

    func chooseBrowser(_ requested: String?) throws(RouterError) -> DesktopEntryReference {
        let db = database
        if let requested {
            guard let entry = db.entry(requested), entry.isLaunchable else {
                throw RouterError(.browserFailed, "the browser \(requested) has no launchable desktop entry in \(db.directories.dataSearchPath.map { $0 + "/applications" }.joined(separator: ":"))")
            }
            guard !OwnEntries.isOwn(entry) else { throw RouterError(.invalidArgument, "browser \(requested) is linkrouter's own entry, not a browser") }
            return DesktopEntryReference(entry: entry)
        }
        guard let entry = db.defaultBrowser() else {
            throw RouterError(.browserFailed, "no default web browser is set (no x-scheme-handler/https handler besides linkrouter); set one with xdg-settings set default-web-browser, or pass the browser option")
        }
        return DesktopEntryReference(entry: entry)
    }

    /// The browser for web links that are not callbacks.
    func webBrowser() throws(RouterError) -> DesktopEntryReference {
        if let record = InstallRecord.read(installRecordPath), let id = record.browser {
            if let entry = database.entry(id), entry.isLaunchable, !OwnEntries.isOwn(entry) {
                return DesktopEntryReference(entry: entry)
            }
            log.write(.warning, "The browser recorded at install (\(id)) is gone; using the default browser instead (run linkctl doctor)")
        }
        return try chooseBrowser(nil)
    }

    func webBrowserDescription() -> String {
        (try? webBrowser().id) ?? "(none found)"
    }

    /// Starts `browser` on `url`, at most a few times a second so a loop or a
    /// flood can never turn into a storm of windows (threat model R6).
    func open(_ url: String, in browser: DesktopEntryReference) throws(RouterError) {
        guard launchLimiter.allow() else {
            throw RouterError(.limitsExceeded, "refusing to start more than \(launchLimiter.perSecond) browsers a second (a link loop?); nothing was opened")
        }
        do { try BrowserLauncher.open(url, with: browser.entry, method: launchMethod) } catch {
            throw RouterError(.browserFailed, error.description)
        }
    }
}
