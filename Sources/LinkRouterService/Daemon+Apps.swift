import DBusKit
import DesktopIntegration
import LinkRouterAPI
import LinkRouterCore
import LinkRouterFiles
import SystemKit

/// The apps that take links (issue 14), found by `LinkApps`, and handing a
/// link to one: `org.freedesktop.Application.Open` for a D-Bus activatable
/// app (the reply comes later; the caller is answered then), else its `Exec`.
extension Daemon {
    /// The app directory, rebuilt only when an applications directory or the
    /// install record changed since (a few `stat`s a link).
    func currentApps() -> AppDirectory {
        let finder = LinkApps(database: DesktopDatabase())
        let print = finder.fingerprint(record: paths.installRecord)
        if let cached = appsCache, cached.fingerprint == print { return cached.apps }
        let (apps, problems) = finder.directory(record: InstallRecord.read(paths.installRecord))
        for p in problems where !(appsCache?.problems.contains(p) ?? false) { log.write(.warning, "Deep links: \(p); run linkctl doctor") }
        appsCache = (print, apps, problems)
        return apps
    }

    /// Carries out a `deliver` effect. Returns true when the caller will be
    /// answered later (an `Open` call is under way).
    func deliver(_ url: String, to app: LinkApp, context: ActivationContext, call: MethodCall?) throws(RouterError) -> Bool {
        guard let entry = DesktopDatabase().entry(app.id) else {
            throw RouterError(.appFailed, "\(app.id) is no longer installed; the link was not delivered")
        }
        switch app.delivery {
        case .exec:
            guard launchLimiter.allow() else {
                throw RouterError(.limitsExceeded, "refusing to start more than \(launchLimiter.perSecond) programs a second (a link loop?); the link was not delivered")
            }
            var variables: [String] = []
            if let t = context.activationToken { variables.append("XDG_ACTIVATION_TOKEN=" + t) }
            if let t = context.desktopStartupID { variables.append("DESKTOP_STARTUP_ID=" + t) }
            do { try BrowserLauncher.launch(url, with: entry, method: launchMethod, variables: variables) } catch {
                throw RouterError(.appFailed, "\(app.id) could not be started: \(error.description); the link was not delivered")
            }
            counters.appsLaunched += 1
            return false
        case .dbus:
            let m = DBusMessage.methodCall(BusName(app.appID), ObjectPath(app.objectPath)!, "org.freedesktop.Application", "Open")
            var platform: [(String, DBusValue)] = []
            if let t = context.activationToken { platform.append((LinkIntake.activationTokenKey, .string(t))) }
            if let t = context.desktopStartupID { platform.append((LinkIntake.desktopStartupIDKey, .string(t))) }
            do { try m.append(.stringArray([url]), .vardict(platform)) } catch {
                throw RouterError(.internalError, "could not build the Open call for \(app.id): \(error.message)")
            }
            // The caller hears what became of the link once the app has answered: `delivered`, or, for
            // a web link the app could not take, `passthrough` once the browser has it (linkctl waits
            // longer than the app is given, LinkIntake).
            let caller = call?.message
            sendCall(m, timeoutMilliseconds: Int64(LinkIntake.appAnswerMilliseconds)) { [weak self] result in
                self?.delivered(url, to: app, result: result, caller: caller)
            }
            return caller != nil
        }
    }

    /// The app's `Open` answered (or did not, in time).
    func delivered(_ url: String, to app: LinkApp, result: Result<DBusMessage, DBusError>, caller: DBusMessage?) {
        switch result {
        case .success:
            counters.appsDelivered += 1
            log.write(.info, "\(app.id) took the link")
            if let caller { reply(to: caller, values: [.string(RouteOutcome.delivered.word)]) }
        case .failure(let e):
            let why = "\(app.id) could not open the link (\(e.name): \(e.message))"
            // A web link is not lost: the browser takes it. Any other is an error the user sees.
            if SchemeRule.isWebLink(url), let browser = try? webBrowser(), (try? open(url, in: browser)) != nil {
                log.write(.warning, why + "; opened it in \(browser.id) instead")
                if let caller { reply(to: caller, values: [.string(RouteOutcome.passthrough.word)]) }
                return
            }
            log.write(.warning, why + "; the link was not delivered")
            notify(summary: "A link could not be opened", body: why + ".")
            if let caller { reply(to: caller, error: DBusError(RouterError(.appFailed, why + "; the link was not delivered: check the app, or run linkctl doctor"))) }
        }
    }

    /// A desktop notification (org.freedesktop.Notifications), best effort:
    /// when no link reaches its app and nobody else would ever hear of it.
    func notify(summary: String, body: String) {
        let m = DBusMessage.methodCall("org.freedesktop.Notifications", "/org/freedesktop/Notifications", "org.freedesktop.Notifications", "Notify")
        m.noReplyExpected = true
        guard (try? m.append(.string("linkrouter"), .uint32(0), .string("dialog-warning"), .string(summary), .string(body),
                             .stringArray([]), .vardict([]), .int32(-1))) != nil else { return }
        send(m)
    }

    // MARK: Calls the daemon makes

    /// Sends a method call; `completion` runs with its reply or error, or a
    /// timeout error, on the loop (never inside this call).
    func sendCall(_ m: DBusMessage, timeoutMilliseconds: Int64, completion: @escaping (Result<DBusMessage, DBusError>) -> Void) {
        do { try connection.send(m) } catch {
            loop.schedule(afterMilliseconds: 0) { completion(.failure(error)) }
            return
        }
        let serial = m.serial
        let timer = loop.schedule(afterMilliseconds: timeoutMilliseconds) { [weak self] in
            guard let pending = self?.pendingCalls.removeValue(forKey: serial) else { return }
            pending.completion(.failure(DBusError(name: DBusError.noReply, message: "no answer within \(timeoutMilliseconds / 1000) s")))
        }
        pendingCalls[serial] = PendingCall(timer: timer, completion: completion)
    }

    /// A reply to one of the daemon's own calls.
    func handleReply(_ m: DBusMessage) {
        guard let pending = pendingCalls.removeValue(forKey: m.replySerial) else { return }
        loop.cancel(pending.timer)
        if let e = m.error { pending.completion(.failure(e)) } else { pending.completion(.success(m)) }
    }
}

/// One call the daemon made and waits for.
struct PendingCall {
    let timer: EventLoop.TimerID
    let completion: (Result<DBusMessage, DBusError>) -> Void
}
