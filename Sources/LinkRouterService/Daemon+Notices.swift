import DBusKit
import LinkRouterCore

/// The notification server's answers about the daemon's sign-in notices
/// (`AccountNotice`: a click begins the account's sign-in, a close ends the
/// notice) and its consent prompts (`ConsentPrompt`: the person's answer). Every client hears every notification's
/// signals; only those of the server that owns `org.freedesktop.Notifications` now, about an id the core knows that
/// server gave it, go on, and only for those is a sign-in's input gathered.
extension Daemon {
    func notificationSignal(_ m: DBusMessage) {
        // Only the server's own: another client could send an `ActionInvoked` of any id to answer for the person.
        guard let server = bus.notificationServer, m.sender == server, let signal = NotificationSignal(m) else {
            return
        }
        switch signal {
        case .activationToken(let id, let token):
            // Kept for the `ActionInvoked` that follows (spec 1.2: just before it), for the browser the action opens.
            bus.activationTokenArrived(id, token)
        case .actionInvoked(let id, let action):
            let handOff = bus.takeActivationToken(id)
            if core.router.isConsentPrompt(id, server: server) {
                execute(core.router.consentAnswered(id, action: action, server: server, now: now))
                return
            }
            guard core.router.isNotice(id, server: server) else { return }
            // What a sign-in needs from outside the core, for an account login that opens the browser.
            var request = SessionRequest()
            request.account = "notice"
            request.openBrowser = true
            execute(
                core.router.noticeInvoked(
                    id, action: action, server: server, activationToken: handOff,
                    inputs: inputs(for: request, flow: .code), accounts: accounts.all(), now: now))
        case .closed(let id, let reason):
            if core.router.isConsentPrompt(id, server: server) {
                execute(core.router.consentClosed(id, reason: reason, server: server, now: now))
                return
            }
            guard core.router.isNotice(id, server: server) else { return }
            execute(core.router.noticeClosed(id, reason: reason, server: server, now: now))
        }
    }
}
