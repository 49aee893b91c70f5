import Testing

@testable import LinkRouterCore

/// A device login through the core (RFC 8628): the codes asked for after the
/// metadata, the session shown to its owner, one timer between polls, the
/// provider's answers weighed, and the tokens handed over as after any exchange.
@Suite("Device logins: BeginDeviceLogin to tokens")
struct DeviceLoginTests {
    static let issuer = OpenIDTests.issuer
    let now = Fixtures.now

    static func metadata(device: Bool = true) -> ProviderMetadata {
        ProviderMetadata(
            issuer: issuer, authorizationEndpoint: issuer + "/auth", tokenEndpoint: issuer + "/token",
            jwksURI: issuer + "/jwks", issParameterSupported: true,
            deviceAuthorizationEndpoint: device ? issuer + "/device_authorization" : nil)
    }

    static func request(_ configure: (inout SessionRequest) -> Void = { _ in }) -> SessionRequest {
        var r = SessionRequest()
        r.issuer = issuer
        r.clientID = "client"
        r.scope = "openid"
        r.openBrowser = false
        configure(&r)
        return r
    }

    static let authorization = DeviceAuthorization(
        deviceCode: "device-code-secret", userCode: "WDJB-MJHT", verificationURI: issuer + "/device",
        verificationURIComplete: issuer + "/device?user_code=WDJB-MJHT",
        expiresIn: 600, interval: 5)

    /// Up to the session: the router, the session, the poll's operation and the transition that began it.
    func begun(_ request: SessionRequest = request()) throws -> (Router, Session, OperationID, Transition) {
        var router = Router()
        let asked = router.beginSession(
            request, flow: .device, inputs: Fixtures.inputs(7), caller: Fixtures.owner, login: false, now: now)
        let op = try #require(asked.held)
        #expect(asked.operation(op) == .begin(.discover(issuer: Self.issuer)))
        router.take(asked)
        let authorize = router.completed(op, .begin(.metadata(.success(Self.metadata()))), now: now)
        #expect(authorize.changes.isEmpty, "nothing kept before the provider gave the codes")
        #expect(
            authorize.operation(op)
                == .begin(
                    .authorizeDevice(
                        DeviceGrant.Request(
                            endpoint: Self.issuer + "/device_authorization", clientID: "client", scope: "openid"))))
        router.take(authorize)
        let begun = router.completed(op, .begin(.deviceAuthorized(.success(Self.authorization))), now: now)
        let session = try #require(begun.session)
        router.take(begun)
        let poll = try #require(begun.started.first)
        return (router, session, poll, begun)
    }

    @Test(
        "the codes come back to the caller alone; the session polls after the interval, one timer, and is never a callback's"
    )
    func begins() throws {
        let (router, session, poll, begun) = try begun()
        guard case .device(let flow) = session.login else {
            Issue.record("not a device session: \(session.login)")
            return
        }
        #expect(flow.deviceCode == "device-code-secret" && flow.userCode == "WDJB-MJHT" && flow.interval == 5)
        #expect(flow.exchange.tokenEndpoint == Self.issuer + "/token" && flow.exchange.expectsIDToken)
        #expect(session.expiresAt == now + 600 && session.status == .pending && session.owner?.name == Fixtures.owner)
        guard case .answer(_, .deviceBegun(let id, let shown, let expiresAt))? = begun.answers.first,
            begun.answers.count == 1
        else {
            Issue.record("the caller was not answered with the codes: \(begun.effects)")
            return
        }
        #expect(id == session.id && shown == flow && expiresAt == now + 600)
        #expect(begun.operation(poll) == .device(.wait(milliseconds: 5000)))
        let timers = begun.effects.filter { if case .start(_, .device(.wait)) = $0 { true } else { false } }
        #expect(timers.count == 1, "one timer, no busy polling")
        #expect(
            begun.effects.contains {
                if case .start(_, .identification(.identify(name: Fixtures.owner))) = $0 { true } else { false }
            },
            "its owner's app is found out, as for any session")
        // No callback ever reaches it, whatever it carries.
        let route = router.route(
            "com.example.app:/callback?code=c&state=WDJB-MJHT", source: .link, via: "test", apps: AppDirectory(),
            now: now)
        #expect(route.changes.isEmpty)
    }

    @Test(
        "pending polls again after the interval; slow_down adds 5 s for good (kept); tokens complete it and its Wait hears them"
    )
    func polls() throws {
        var (router, session, poll, _) = try begun()
        let (wait, _) = try router.holdWait(session.id)
        let fired = router.completed(poll, .device(.due), now: now + 5)
        guard case .device(.poll(let grant, let code))? = fired.operation(poll) else {
            Issue.record("no poll: \(fired.effects)")
            return
        }
        #expect(
            code == "device-code-secret" && grant.tokenEndpoint == Self.issuer + "/token" && grant.expected.nonce == nil
        )
        router.take(fired)

        let pending = router.completed(
            poll,
            .device(
                .polled(
                    .failure(
                        SessionFailure(code: .tokenExchangeFailed, providerError: "authorization_pending", message: "x")
                    ))),
            now: now + 6)
        #expect(pending.operation(poll) == .device(.wait(milliseconds: 5000)) && pending.changes.isEmpty)
        router.take(pending)
        router.take(router.completed(poll, .device(.due), now: now + 11))
        let slowed = router.completed(
            poll,
            .device(
                .polled(.failure(SessionFailure(code: .tokenExchangeFailed, providerError: "slow_down", message: "x")))),
            now: now + 12)
        #expect(slowed.operation(poll) == .device(.wait(milliseconds: 10_000)))
        #expect(slowed.session?.login.device?.interval == 10, "the longer interval is kept (and stored)")
        router.take(slowed)
        router.take(router.completed(poll, .device(.due), now: now + 22))

        let tokens = TokenSet(
            accessToken: "at", tokenType: "Bearer", expiresAt: now + 3600, refreshToken: "rt", idToken: nil,
            scope: "openid")
        let done = router.completed(poll, .device(.polled(.success(tokens))), now: now + 23)
        let finished = try #require(done.changes.compactMap { if case .update(let s) = $0 { s } else { nil } }.first)
        #expect(finished.status == .completed && finished.result?.tokens == tokens)
        #expect(finished.login.device?.deviceCode == nil, "the device code is gone with the grant")
        let result = try #require(finished.result)
        #expect(done.effects.contains(Effect.answer(wait, .waited(.success(result)))))
        #expect(done.core.contains(.finish(poll)))
    }

    @Test(
        "access_denied, expired_token and any other error end the session with their own error; the device code is wiped; nothing polls again"
    )
    func ends() throws {
        for (error, code) in [
            ("access_denied", RouterError.Code.authorizationFailed), ("expired_token", .expired),
            ("invalid_client", .tokenExchangeFailed),
        ] {
            var (router, session, poll, _) = try begun()
            router.take(router.completed(poll, .device(.due), now: now + 5))
            let ended = router.completed(
                poll,
                .device(
                    .polled(
                        .failure(SessionFailure(code: .tokenExchangeFailed, providerError: error, message: "refused")))),
                now: now + 6)
            let failed = try #require(ended.changes.compactMap { if case .update(let s) = $0 { s } else { nil } }.first)
            #expect(
                failed.status == .failed && failed.failure?.code == code && failed.failure?.providerError == error,
                "\(error)")
            #expect(
                failed.login.device?.deviceCode == nil && ended.started.isEmpty && ended.core.contains(.finish(poll))
            )
            #expect(failed.id == session.id)
        }
    }

    @Test("the session ended (cancelled): its poll's timer is cancelled with it, and a late outcome does nothing")
    func afterTheEnd() throws {
        var (router, session, poll, _) = try begun()
        let cancelled = router.cancel(session.id, by: Fixtures.owner, now: now + 1)
        #expect(
            cancelled.effects.contains(.cancel(poll)) && cancelled.core.contains(.finish(poll)), "\(cancelled.effects)")
        router.take(cancelled)
        let late = router.completed(poll, .device(.due), now: now + 5)
        #expect(late.effects.isEmpty && late.changes.isEmpty && late.core.isEmpty)
    }

    @Test("between polls a stop loses nothing (the stored session polls again); a poll in flight holds a restart back")
    func stopping() throws {
        var (router, _, poll, begun) = try begun()
        // The owner's app found out, so only the device poll is left under way.
        let identify = try #require(
            begun.effects.compactMap { if case .start(let op, .identification) = $0 { op } else { nil } }.first)
        router.take(router.completed(identify, .identification(.identified(.host)), now: now))
        #expect(router.whatStoppingLoses().isEmpty, "\(router.whatStoppingLoses())")
        router.take(router.completed(poll, .device(.due), now: now + 5))
        #expect(router.whatStoppingLoses() == ["1 operations under way"])
    }

    @Test(
        "refused: a provider without a device endpoint (saying what to do instead), the options of a browser login, no client"
    )
    func refused() throws {
        var router = Router()
        let asked = router.beginSession(
            Self.request(), flow: .device, inputs: Fixtures.inputs(7), caller: Fixtures.owner, login: false, now: now)
        let op = try #require(asked.held)
        router.take(asked)
        let none = router.completed(op, .begin(.metadata(.success(Self.metadata(device: false)))), now: now)
        guard case .answer(_, .refused(let e))? = none.answers.first else {
            Issue.record("not refused: \(none.effects)")
            return
        }
        #expect(
            e.code == .invalidArgument && e.message.contains("no device_authorization_endpoint")
                && e.message.contains("--no-browser"))
        for (name, configure) in [
            ("authorize_url", { (r: inout SessionRequest) in r.authorizeURL = "https://a.example/auth?state=x" }),
            ("app_callback_uri", { (r: inout SessionRequest) in r.appCallbackURI = "com.example.app:/app" }),
            ("code_challenge", { (r: inout SessionRequest) in r.codeChallenge = String(repeating: "a", count: 43) }),
        ] {
            let r = Router()
            let request = Self.request(configure)
            let t = r.beginSession(
                request, flow: .device, inputs: Fixtures.inputs(8), caller: Fixtures.owner, login: false, now: now)
            guard case .refused(let e) = t.reply else {
                Issue.record("\(name) not refused: \(t.reply)")
                continue
            }
            #expect(e.message.contains(name) && e.message.contains("device login"), "\(e.message)")
        }
        // Values that would go into the request and the stored session as lines: refused before anything is asked.
        for (configure, words) in [
            ({ (r: inout SessionRequest) in r.clientID = "client\nopenid=1" }, "client_id must be printable ASCII"),
            ({ (r: inout SessionRequest) in r.scope = "openid\naccount=x" }, "scope must be space-separated tokens"),
        ] {
            let r = Router()
            let t = r.beginSession(
                Self.request(configure), flow: .device, inputs: Fixtures.inputs(8), caller: Fixtures.owner,
                login: false, now: now)
            guard case .refused(let e) = t.reply else {
                Issue.record("\(words) not refused: \(t.reply)")
                continue
            }
            let onlyLogged = t.effects.allSatisfy { if case .log = $0 { true } else { false } }
            #expect(
                e.code == .invalidArgument && e.message.contains(words) && t.changes.isEmpty && t.core.isEmpty
                    && onlyLogged, "\(e.message)")
        }
        let r = Router()
        let noClient = r.beginSession(
            Self.request { $0.clientID = nil }, flow: .device, inputs: Fixtures.inputs(9), caller: Fixtures.owner,
            login: false, now: now)
        guard case .refused(let missing) = noClient.reply else {
            Issue.record("no client_id was not refused: \(noClient.reply)")
            return
        }
        #expect(missing.code == .invalidArgument && missing.message.contains("client_id"))
    }

    @Test("the provider's refusal of the device request is the caller's error; nothing is kept")
    func providerRefused() throws {
        var router = Router()
        let asked = router.beginSession(
            Self.request(), flow: .device, inputs: Fixtures.inputs(7), caller: Fixtures.owner, login: false, now: now)
        let op = try #require(asked.held)
        router.take(asked)
        router.take(router.completed(op, .begin(.metadata(.success(Self.metadata()))), now: now))
        let e = RouterError(
            .authorizationFailed,
            "the device authorization request to x was refused: HTTP 400: invalid_client; nothing was shown")
        let refused = router.completed(op, .begin(.deviceAuthorized(.failure(e))), now: now)
        #expect(refused.changes.isEmpty && refused.answers == [.answer(op, .refused(e))])
    }

    @Test("stored and read back, a device session is the same; restored, it polls again after its interval")
    func restored() throws {
        let (_, session, _, _) = try begun()
        let login = session.login
        let back = Login(kind: login.kind, stored: login.stored, parse: { _, _ in nil })
        #expect(back == login)
        var fresh = Router()
        let restored = fresh.restore([session], previousBusID: "bus", now: now + 100)
        fresh.take(restored)
        let snapshot = try #require(restored.started.first)
        let t = fresh.completed(
            snapshot, .restore(.busNames(.success(BusSnapshot(id: "bus", names: [Fixtures.owner])))), now: now + 100)
        #expect(
            t.effects.contains { if case .start(_, .device(.wait(milliseconds: 5000))) = $0 { true } else { false } },
            "\(t.effects)")
    }
}
