import DBusKit
import DesktopIntegration
import Freedesktop
import LinkRouterCore
import LinkRouterFiles
import SystemKit

/// The launcher component: which browser opens what (by the shared rules of
/// `Browsers`), which app takes which links (`LinkApps`, rebuilt only when
/// the desktop's files change), and starting them, at most ten programs a
/// second so a loop or a flood can never become a storm of windows (R6).
final class Launcher {
    let paths: LinkRouterPaths
    /// Browsers are started by the user manager when the daemon is a sandboxed systemd service.
    let method = BrowserLauncher.Method.forThisProcess()
    private var limiter = RateLimiter(perSecond: 10)
    /// The apps that take links, and the fingerprint of the files they came from.
    private var appsCache: (fingerprint: [Int64], apps: AppDirectory, problems: [LinkApps.Problem])?
    /// The browser `loginBrowser` chose last, and its file's mtime, for the `openBrowser` that follows.
    private var chosen: (entry: DesktopEntry, modified: Int64?)?
    private(set) var browsersStarted: UInt64 = 0
    private(set) var appsDelivered: UInt64 = 0
    private(set) var appsLaunched: UInt64 = 0

    init(paths: LinkRouterPaths) { self.paths = paths }

    var browsers: Browsers { Browsers(database: DesktopDatabase()) }

    // MARK: Browsers

    /// The browser for a login (the one the app asked for, or the default), as `BeginInputs` wants it.
    func loginBrowser(_ requested: String?) -> Result<String, RouterError> {
        do {
            let entry = try browsers.forLogin(requested)
            chosen = (entry, FileSystem.status(entry.path)?.modifiedNanoseconds)
            return .success(entry.id)
        } catch {
            return .failure(RouterError(.browserFailed, error.description))
        }
    }

    /// The browser for web links that are not callbacks (recorded at install, else the default).
    func webBrowser() throws(RouterError) -> DesktopEntry {
        let (entry, gone) = browsers.forWebLinks(record: InstallRecord.read(paths.installRecord))
        if let gone {
            Log.warning(
                "The browser recorded at install (\(gone)) is gone; using the default browser instead (run linkctl doctor)"
            )
        }
        guard let entry else {
            throw RouterError(
                .browserFailed,
                "no default web browser is set (no x-scheme-handler/https handler besides linkrouter); set one with xdg-settings set default-web-browser, or pass the browser option"
            )
        }
        return entry
    }

    var webBrowserDescription: String { (try? webBrowser().id) ?? "(none found)" }

    func browser(_ choice: BrowserChoice) throws(RouterError) -> DesktopEntry {
        switch choice {
        case .entry(let id):
            // The entry BeginSession just chose is not looked up again (the desktop's files read
            // twice), unless its file changed since (one stat).
            if let (entry, modified) = chosen, entry.id == id {
                chosen = nil
                if modified != nil && FileSystem.status(entry.path)?.modifiedNanoseconds == modified { return entry }
            }
            do { return try browsers.forLogin(id) } catch { throw RouterError(.browserFailed, error.description) }
        case .sameAs(let id?):
            guard let entry = DesktopDatabase().entry(id) else {
                throw RouterError(
                    .browserFailed,
                    "the browser that began this login (\(id)) is no longer installed, and resume_uri must open in that same browser; nothing was opened"
                )
            }
            return entry
        case .sameAs(nil):
            do { return try browsers.forLogin(nil) } catch { throw RouterError(.browserFailed, error.description) }
        case .web:
            return try webBrowser()
        }
    }

    /// `Effect.openBrowser`: starts the browser `choice` names on `url`, with the hand-off's token in its
    /// environment (both names) so its window may take focus.
    func open(_ url: String, in choice: BrowserChoice, handOff: ActivationContext = .none) throws(RouterError) {
        let entry = try browser(choice)
        guard limiter.allow() else {
            throw RouterError(
                .limitsExceeded,
                "refusing to start more than \(limiter.perSecond) browsers a second (a link loop?); nothing was opened")
        }
        do { try BrowserLauncher.open(url, with: entry, method: method, variables: Self.variables(handOff)) } catch {
            throw RouterError(.browserFailed, error.description)
        }
        browsersStarted += 1
    }

    // MARK: Apps

    /// The app directory, rebuilt only when an applications directory or the
    /// install record changed since (a few `stat`s a link).
    func currentApps() -> AppDirectory {
        let finder = LinkApps(database: DesktopDatabase())
        let print = finder.fingerprint(record: paths.installRecord)
        if let cached = appsCache, cached.fingerprint == print { return cached.apps }
        let (apps, problems) = finder.directory(record: InstallRecord.read(paths.installRecord))
        for p in problems where !(appsCache?.problems.contains(p) ?? false) {
            Log.warning("Deep links: \(p); run linkctl doctor")
        }
        appsCache = (print, apps, problems)
        return apps
    }

    /// How a link reaches its app (a `Delivery`'s work).
    enum Delivery {
        /// Done already: its `Exec` started (or could not).
        case done(Result<RouteOutcome, RouterError>)
        /// Call `org.freedesktop.Application.Open` (the daemon's bus does).
        case open(ApplicationOpen)
    }

    /// Hands a link to its app through its `Exec`, or says which `Open` call to make.
    func delivery(_ url: String, to app: LinkApp, context: ActivationContext) -> Delivery {
        guard let entry = DesktopDatabase().entry(app.id) else {
            return .done(
                .failure(RouterError(.appFailed, "\(app.id) is no longer installed; the link was not delivered")))
        }
        switch app.delivery {
        case .exec:
            guard limiter.allow() else {
                return .done(
                    .failure(
                        RouterError(
                            .limitsExceeded,
                            "refusing to start more than \(limiter.perSecond) programs a second (a link loop?); the link was not delivered"
                        )))
            }
            do {
                try BrowserLauncher.launch(url, with: entry, method: method, variables: Self.variables(context))
            } catch {
                return .done(
                    .failure(
                        RouterError(
                            .appFailed,
                            "\(app.id) could not be started: \(error.description); the link was not delivered")))
            }
            appsLaunched += 1
            return .done(.success(.launched))
        case .dbus:
            guard let name = BusName(app.appID), let path = ObjectPath(app.objectPath) else {
                return .done(
                    .failure(
                        RouterError(
                            .appFailed, "\(app.id) has no valid bus name or object path; the link was not delivered")))
            }
            // Both keys: GTK 4.8 and GLib 2.74 read only `desktop-startup-id` (issue 45).
            let both = context.forHandOn
            var platform: [(String, String)] = []
            if let t = both.activationToken { platform.append((LinkIntake.activationTokenKey, t)) }
            if let t = both.desktopStartupID { platform.append((LinkIntake.desktopStartupIDKey, t)) }
            return .open(ApplicationOpen(app: name, path: path, uris: [url], platformData: platform))
        }
    }

    /// The name an app's desktop entry gives it (`Name`), for the person to read; the id itself when it has none.
    func appName(_ id: String) -> String { DesktopDatabase().entry(id)?.name ?? id }

    /// A hand-off's token as a launched program's environment: both names (GTK 4.8 and GLib 2.74 read only
    /// `DESKTOP_STARTUP_ID`, GTK from 4.14.6 `XDG_ACTIVATION_TOKEN`).
    static func variables(_ handOff: ActivationContext) -> [String] {
        let both = handOff.forHandOn
        return (both.activationToken.map { ["XDG_ACTIVATION_TOKEN=" + $0] } ?? [])
            + (both.desktopStartupID.map { ["DESKTOP_STARTUP_ID=" + $0] } ?? [])
    }

    /// What the app's `Open` answer means for the link.
    func opened(_ app: LinkApp, _ answer: Result<NoReply, DBusError>) -> Result<RouteOutcome, RouterError> {
        switch answer {
        case .success:
            appsDelivered += 1
            return .success(.delivered)
        case .failure(let e):
            return .failure(
                RouterError(
                    .appFailed,
                    "\(app.id) could not open the link (\(e.name): \(e.message)); the link was not delivered: check the app, or run linkctl doctor"
                ))
        }
    }

    // MARK: The handlers linkrouter installed

    /// Start-up self-check (threat model E3): each handler linkrouter
    /// installed should still be the default for its scheme. Another program
    /// may have taken one over; links of that scheme would then never reach
    /// the daemon. Security does not rest on this (state, PKCE and the exact
    /// callback match do), so it warns and points at `linkctl doctor`.
    func checkHandlers() {
        guard let record = InstallRecord.read(paths.installRecord) else { return }
        for finding in HandlerCheck.run(record: record, database: DesktopDatabase()) {
            switch finding {
            case .handles:
                break
            case .missing(let id, _):
                Log.warning("Installed handler \(id) is gone; run linkctl doctor")
            case .staleExec(let id, let program):
                Log.warning("Installed handler \(id) runs \(program), which does not exist; run linkctl doctor")
            case .notDefault(let id, let mime, let current):
                Log.warning(
                    "\(mime) is handled by \(current ?? "nothing"), not by linkrouter's \(id): those links will not reach linkrouterd; run linkctl doctor"
                )
            case .sharedWith(_, let mime, let others):
                Log.warning(
                    "\(others.joined(separator: ", ")) also handle\(others.count == 1 ? "s" : "") \(mime): the OpenURI portal would ask which app opens each link and could hand a login's code to an app; run linkctl doctor"
                )
            }
        }
    }
}
