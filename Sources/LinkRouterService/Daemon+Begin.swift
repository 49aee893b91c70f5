import Crypto
import DBusKit
import DesktopIntegration
import LinkRouterAPI
import LinkRouterCore
import Loopback
import SystemKit

/// `BeginSession`: validate, listen (loopback), draw secrets, persist, open
/// the browser, answer. Each step that fails undoes the ones before it, so a
/// refused call leaves nothing behind (threat model P6).
extension Daemon {
    func beginSession(_ options: DBusValue, sender: String) throws(DBusError) -> [DBusValue] {
        let request = try SessionOptions.decode(options)
        var plan: SessionPlan
        do {
            plan = try SessionPlan.make(request, owner: sender, limits: router.limits)
            try router.admit(plan)
        } catch {
            log.write(.info, "Refused BeginSession from \(sender): \(error.message)")
            throw Self.busError(error)
        }
        guard ensureStore() else {
            throw Self.busError(RouterError(.storageFailed, "the session store is unavailable (\(storeProblem ?? "unknown reason")), so a session could not be kept safe; nothing was started"))
        }

        // The browser is chosen before anything is bound or written.
        var browser: DesktopEntryReference?
        if plan.openBrowser {
            do { browser = try chooseBrowser(request.browser) } catch { throw Self.busError(error) }
        }

        let secrets: SessionSecrets
        let digest: [UInt8]?
        do {
            var drawn = try SecretFactory.make(withVerifier: plan.needsVerifier)
            while router.isInUse(state: drawn.state, id: drawn.id) { drawn = try SecretFactory.make(withVerifier: plan.needsVerifier) }
            secrets = drawn
            digest = try plan.claimToken.map { t throws(CryptoError) in try SHA256.hash(t) }
        } catch {
            // No fallback randomness (threat model S8).
            Log.error("Failed to draw session secrets: \(error)")
            throw Self.busError(RouterError(.internalError, "the daemon could not draw random secrets (\(error)); nothing was started"))
        }

        // A loopback listener is up before the authorize URL exists.
        var listener: LoopbackListener?
        if let binding = plan.loopbackBinding {
            do {
                let l = try startListener(for: secrets.id, address: binding.address, port: binding.port,
                                          hostLiteral: binding.hostLiteral, path: plan.redirect.uri.path)
                plan.bind(port: l.port)
                listener = l
            } catch {
                throw Self.busError(RouterError(.listenerFailed, error.description))
            }
        }

        var session = plan.makeSession(secrets: secrets, claimTokenDigest: digest, now: now)
        let authorizeURL = plan.authorizeURL(secrets: secrets)
        session.browser = browser?.id
        do { try persist(session, new: true) } catch {
            listener?.close()
            throw Self.busError(error)
        }
        router.insert(session)
        if let listener { listeners[session.id] = listener }
        scheduleDeadline(session)

        if let browser {
            do { try open(authorizeURL, in: browser) } catch {
                discard(session.id)
                throw Self.busError(error)
            }
        }
        log.write(.info, "Began \(session.logTag) for \(sender): \(session.mode.rawValue), \(session.redirect.style.rawValue) callback \(session.redirect.string)\(session.appCallback.map { ", app callback " + $0.string } ?? "")\(browser.map { ", browser " + $0.id } ?? ", no browser opened")\(plan.mode == .adopted && plan.clientChallenge == nil ? "; the adopted URL carries no PKCE, so the session rests on state alone (threat model S9)" : "")")
        return [.objectPath(ObjectPath(session.id.objectPath)!), .string(authorizeURL)]
    }

    /// Removes a session that never got going (its browser would not start).
    func discard(_ id: SessionID) {
        listeners.removeValue(forKey: id)?.close()
        router.remove(id)
        do { try store?.delete(id) } catch { Log.error("Failed to delete \(id.rawValue.prefix(8)) from the store: \(error)") }
    }
}
