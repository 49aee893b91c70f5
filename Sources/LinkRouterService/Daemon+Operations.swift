import DBusKit
import DesktopIntegration
import LinkRouterAPI
import LinkRouterCore
import Loopback
import SystemKit

/// Operations: `Effect.start(id, operation)` hands the work to the component
/// that does it, and its outcome comes back, on the loop, as the one event
/// `Router.completed(id, result)`. A new kind of waiting is a case here and
/// in `Operation`, not a new path through the daemon.
extension Daemon {
    func start(_ op: OperationID, _ operation: Operation) {
        // An outcome known at once (metadata in the cache, a port bound) still
        // arrives on a later turn: an event never runs inside another's transition.
        var inside = true
        let done: (OperationResult) -> Void = { [unowned self] result in
            if inside {
                loop.schedule(afterMilliseconds: 0) { [unowned self] in complete(op, result) }
            } else {
                complete(op, result)
            }
        }
        defer { inside = false }
        switch operation {
        case .timer(let ms):
            sessions.startTimer(op, milliseconds: Int64(ms)) { done(.fired) }
        case .discover(let issuer):
            providers.discover(issuer) { done(.metadata($0)) }
        case .listen(let id, let binding, let path):
            done(
                .listening(
                    sessions.listen(id, binding: binding, path: path) { [unowned self] request, id, port in
                        loopbackRequest(request, session: id, port: port)
                    }))
        case .deliver(let url, let app, let context):
            switch launcher.delivery(url, to: app, context: context) {
            case .done(let outcome):
                done(.delivered(outcome))
            case .open(let proxy, let arguments):
                bus.call(proxy, "Open", arguments, timeoutMilliseconds: Int64(LinkIntake.appAnswerMilliseconds)) {
                    [unowned self] answer in
                    done(.delivered(launcher.opened(app, answer.map { _ in () })))
                }
            }
        case .redeem(let grant, let code, let redirectURI, let verifier):
            providers.redeem(grant, code: code, redirectURI: redirectURI, verifier: verifier) { done(.tokens($0)) }
        case .refresh(let grant, let refreshToken, let scope):
            providers.refresh(grant, refreshToken: refreshToken, scope: scope) { done(.tokens($0)) }
        case .identify(let name):
            bus.processID(of: name) { pid in done(.identified(pid.map { CallerApps.app(ofProcess: $0) } ?? .unknown)) }
        case .busNames:
            bus.snapshot { done(.busNames($0)) }
        case .keyringRead(let key):
            accounts.read(key, done)
        case .keyringWrite(let key, let tokens):
            accounts.write(key, tokens, done)
        case .keyringDelete(let key):
            accounts.delete(key, done)
        case .writeAccount(let account):
            done(.accountFile(accounts.save(account)))
        case .removeAccount(let account):
            done(.accountFile(accounts.remove(account)))
        case .revoke(let r, let endpoint):
            providers.revoke(r, endpoint: endpoint) { done(.revoked($0)) }
        case .push(let request):
            providers.push(request) { done(.pushed($0)) }
        case .authorizeDevice(let request):
            providers.authorizeDevice(request) { done(.deviceAuthorized($0)) }
        case .pollDevice(let grant, let code):
            providers.pollDevice(grant, deviceCode: code) { done(.tokens($0)) }
        }
    }

    /// An operation's outcome: an event for the core like any other.
    func complete(_ op: OperationID, _ result: OperationResult) {
        execute(sessions.router.completed(op, result, now: now))
    }
}
