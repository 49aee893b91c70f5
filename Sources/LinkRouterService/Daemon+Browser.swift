import DesktopIntegration
import Freedesktop
import LinkRouterCore
import LinkRouterFiles
import SystemKit

/// Turning an effect's `BrowserChoice` into a desktop entry, by the shared
/// rules of `Browsers`, and starting it.
extension Daemon {
    var browsers: Browsers { Browsers(database: DesktopDatabase()) }

    /// The browser for a login (the one the app asked for, or the default).
    func chooseBrowser(_ requested: String?) throws(RouterError) -> DesktopEntry {
        do { return try browsers.forLogin(requested) } catch { throw RouterError(.browserFailed, error.description) }
    }

    /// The browser for web links that are not callbacks (recorded at install, else the default).
    func webBrowser() throws(RouterError) -> DesktopEntry {
        let (entry, gone) = browsers.forWebLinks(record: InstallRecord.read(paths.installRecord))
        if let gone { log.write(.warning, "The browser recorded at install (\(gone)) is gone; using the default browser instead (run linkctl doctor)") }
        guard let entry else {
            throw RouterError(.browserFailed, "no default web browser is set (no x-scheme-handler/https handler besides linkrouter); set one with xdg-settings set default-web-browser, or pass the browser option")
        }
        return entry
    }

    func webBrowserDescription() -> String { (try? webBrowser().id) ?? "(none found)" }

    func browser(_ choice: BrowserChoice) throws(RouterError) -> DesktopEntry {
        switch choice {
        case .entry(let id):
            return try chooseBrowser(id)
        case .sameAs(let id?):
            guard let entry = DesktopDatabase().entry(id) else {
                throw RouterError(.browserFailed, "the browser that began this login (\(id)) is no longer installed, and resume_uri must open in that same browser; nothing was opened")
            }
            return entry
        case .sameAs(nil):
            return try chooseBrowser(nil)
        case .web:
            return try webBrowser()
        }
    }

    /// Starts `browser` on `url`, at most a few times a second so a loop or a
    /// flood can never turn into a storm of windows (threat model R6).
    func open(_ url: String, in browser: DesktopEntry) throws(RouterError) {
        guard launchLimiter.allow() else {
            throw RouterError(.limitsExceeded, "refusing to start more than \(launchLimiter.perSecond) browsers a second (a link loop?); nothing was opened")
        }
        do { try BrowserLauncher.open(url, with: browser, method: launchMethod) } catch {
            throw RouterError(.browserFailed, error.description)
        }
        counters.browsersStarted += 1
    }
}
