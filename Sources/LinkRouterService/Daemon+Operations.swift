import DBusKit
import DesktopIntegration
import LinkRouterAPI
import LinkRouterCore
import Loopback
import SystemKit

/// Operations: `Effect.start(id, operation)` hands each kind of work to the
/// component that does it, and its result comes back, on the loop, as the
/// one event `Router.completed(id, completion)`: the event of the machine
/// that asked for it, of the kind its work answers with. The table below is
/// exhaustive: a machine's new work does not compile until it has its row.
extension Daemon {
    func start(_ op: OperationID, _ operation: Operation) {
        // A result known at once (metadata in the cache, a port bound) still
        // arrives on a later turn: an event never runs inside another's transition.
        var inside = true
        let done: (Completion) -> Void = { [unowned self] completion in
            if inside {
                loop.schedule(afterMilliseconds: 0) { [unowned self] in complete(op, completion) }
            } else {
                complete(op, completion)
            }
        }
        defer { inside = false }
        switch operation {
        case .begin(.probeKeyring(let key)): accounts.read(key) { done(.begin(.keyring($0))) }
        case .begin(.discover(let issuer)): providers.discover(issuer) { done(.begin(.metadata($0))) }
        case .begin(.listen(let id, let binding, let path, let page)):
            done(.begin(.listening(listen(id, binding, path, page: page))))
        case .begin(.push(let request)): providers.push(request) { done(.begin(.pushed($0))) }
        case .begin(.authorizeDevice(let request)):
            providers.authorizeDevice(request) { done(.begin(.deviceAuthorized($0))) }

        case .code(.redeem(let grant, let code, let redirectURI, let verifier)):
            providers.redeem(grant, code: code, redirectURI: redirectURI, verifier: verifier) {
                done(.code(.redeemed($0)))
            }
        case .code(.listen(let id, let binding, let path)): done(.code(.listening(listen(id, binding, path))))

        case .device(.wait(let ms)): sessions.startTimer(op, milliseconds: Int64(ms)) { done(.device(.due)) }
        case .device(.poll(let grant, let code)):
            providers.pollDevice(grant, deviceCode: code) { done(.device(.polled($0))) }

        case .signOut(.listen(let id, let binding, let path)): done(.signOut(.listening(listen(id, binding, path))))

        case .delivery(.deliver(let url, let app, let context)):
            switch launcher.delivery(url, to: app, context: context) {
            case .done(let outcome):
                done(.delivery(.delivered(outcome)))
            case .open(let call):
                bus.call(call, timeoutMilliseconds: Int64(LinkIntake.appAnswerMilliseconds)) { [unowned self] answer in
                    done(.delivery(.delivered(launcher.opened(app, answer))))
                }
            }

        case .flight(.read(let key)): accounts.read(key) { done(.flight(.read($0))) }
        case .flight(.discover(let issuer)): providers.discover(issuer, room: .account) { done(.flight(.metadata($0))) }
        case .flight(.refresh(let grant, let used, let target)):
            providers.refresh(grant, refreshToken: used, form: target.formFields, room: .account) {
                done(.flight(.refreshed($0, used: used)))
            }
        case .flight(.patience(let ms)): sessions.startTimer(op, milliseconds: ms) { done(.flight(.slow)) }
        case .flight(.check(let key)): accounts.read(key) { done(.flight(.checked($0))) }
        case .flight(.reread(let key, let used, let refusal)):
            accounts.read(key) { done(.flight(.reread($0, used: used, refusal: refusal))) }
        case .flight(.write(let key, let tokens)): accounts.write(key, tokens) { done(.flight(.written($0, tokens))) }
        case .forgetting(let key): accounts.delete(key) { done(.forgetting($0)) }

        case .revoking(.discover(let issuer)):
            providers.discover(issuer, room: .account) { done(.revoking(.metadata($0))) }
        case .revoking(.revoke(let r, let endpoint)):
            providers.revoke(r, endpoint: endpoint) { done(.revoking(.revoked($0))) }

        case .identification(.identify(let name)):
            let appeared = bus.appeared(name)
            bus.credentials(of: name) { c in
                let app =
                    c.map {
                        CallerApps.app(
                            ofProcess: $0.pid, uid: $0.uid, appearedAt: appeared.milliseconds, strictly: !appeared.seen)
                    } ?? .unknown
                // A sandboxed app's name as the person knows it, from its sandbox's exported entry (for prompts).
                done(.identification(.identified(app, face: CallerApps.exportedFace(of: app))))
            }

        case .refresh(.discover(let issuer)): providers.discover(issuer) { done(.refresh(.metadata($0))) }
        case .refresh(.refresh(let grant, let token, let scope)):
            providers.refresh(grant, refreshToken: token, form: scope.map { [("scope", $0)] } ?? [], room: .anyCaller) {
                done(.refresh(.refreshed($0)))
            }

        case .restore(.busNames): bus.snapshot { done(.restore(.busNames($0))) }

        case .logout(.read(let key)): accounts.read(key) { done(.logout(.read($0))) }
        case .logout(.delete(let key)): accounts.delete(key) { done(.logout(.deleted($0))) }

        case .accountFile(.write(let account)): done(.accountFile(.done(accounts.save(account))))
        case .accountFile(.remove(let account)): done(.accountFile(.done(accounts.remove(account))))
        case .accountFile(.revokeGrant(let account, let app)):
            done(.accountFile(.done(accounts.revokeGrants(account, app: app))))

        case .registration(.discover(let issuer)):
            providers.discover(issuer) { done(.registration(.metadata($0))) }
        case .registration(.pickPort(let binding)): done(.registration(.port(sessions.freePort(binding))))
        case .registration(.register(let request)):
            providers.register(request) { done(.registration(.registered($0))) }
        case .registration(.keep(let key, let credentials)):
            accounts.writeRegistration(key, credentials) { done(.registration(.kept($0))) }
        case .registration(.undo(let credentials)):
            providers.deleteRegistration(credentials) { done(.registration(.undone($0))) }

        case .deregistration(.read(let key)): accounts.readRegistration(key) { done(.deregistration(.read($0))) }
        case .deregistration(.delete(let credentials)):
            providers.deleteRegistration(credentials) { done(.deregistration(.deleted($0))) }
        case .deregistration(.forget(let key)):
            accounts.deleteRegistration(key) { done(.deregistration(.forgotten($0))) }

        case .resourceLookup(.metadata(let resource, let at)):
            providers.resourceMetadata(resource, at: at) { done(.resourceLookup(.metadata($0))) }

        case .waitTimer(.timer(let ms)): sessions.startTimer(op, milliseconds: Int64(ms)) { done(.waitTimer(.fired)) }

        case .accountNotice(.show(let text)):
            let notify = Notify(
                appName: "linkrouter", icon: "dialog-password", summary: text.summary, body: bus.markup(text.body),
                actions: [text.action], expireTimeout: 0)
            bus.call(notify, timeoutMilliseconds: 5000) { result in
                done(
                    .accountNotice(
                        .shown(
                            result.map { ShownNotification(id: $0.id, server: $0.server) }
                                .mapError { RouterError(.internalError, $0.message) })))
            }
        case .accountNotice(.unlockKeyring): accounts.unlockKeyring { done(.accountNotice(.unlockAsked($0))) }

        case .consent(.describe(let caller)) where agent.peer(caller) != nil:
            let pid = agent.peer(caller)!.credentials?.pid
            done(.consent(.described(pid.map { CallerApps.program(ofProcess: $0) } ?? "an unknown program")))
        case .consent(.describe(let caller)):
            bus.credentials(of: caller) { c in
                done(.consent(.described(c.map { CallerApps.program(ofProcess: $0.pid) } ?? "an unknown program")))
            }
        case .consent(.show(let question)):
            // Action keys no other program can know (issue 44): a nonce from the kernel's CSPRNG, for this prompt.
            guard let drawn = try? SecureRandom.draw(16) else {
                done(.consent(.shown(.failure(RouterError(.internalError, "getrandom gave no keys for the prompt")))))
                break
            }
            let nonce = Base64URL.encode(drawn)
            let notify = Notify(
                appName: "linkrouter", icon: question.icon ?? "dialog-password", summary: question.summary,
                body: bus.markup(question.body),
                actions: question.actions(nonce: nonce), expireTimeout: 0)
            bus.call(notify, timeoutMilliseconds: 5000) { result in
                done(
                    .consent(
                        .shown(
                            result.map {
                                ConsentPrompt.Shown(
                                    notification: ShownNotification(id: $0.id, server: $0.server), nonce: nonce)
                            }.mapError { RouterError(.internalError, $0.message) })))
            }
        case .consent(.deadline(let ms)): sessions.startTimer(op, milliseconds: ms) { done(.consent(.expired)) }
        case .consent(.remember(let account, let grant)): done(.consent(.remembered(accounts.grant(account, grant))))

        case .backgroundRefresh(.wait(let ms)):
            sessions.startTimer(op, milliseconds: ms) { done(.backgroundRefresh(.due)) }
        case .backgroundRefresh(.declaration(let key)):
            done(.backgroundRefresh(.declared(accounts.all().first { $0.key == key })))
        }
    }

    /// A session's loopback listener (bound now); its requests are routed like any link. A sign-out's page, when it
    /// has one, is made from the session as it is asked for (its redirect bound, its state).
    private func listen(_ id: SessionID, _ binding: LoopbackBinding, _ path: String, page: SignOutPage? = nil)
        -> Result<Int, RouterError>
    {
        let served = page.map { p in
            (path: p.path, serve: { [unowned self] () -> HTTPResponse in signOutPage(p, session: id) })
        }
        return sessions.listen(id, binding: binding, path: path, page: served) { [unowned self] request, id, port in
            loopbackRequest(request, session: id, port: port)
        }
    }

    /// An operation's result: an event for the core like any other.
    func complete(_ op: OperationID, _ completion: Completion) {
        execute(core.router.completed(op, completion, now: now))
    }
}
