/// Device logins (RFC 8628): `BeginDeviceLogin` asks the provider for codes,
/// makes a session that shows them to its owner, and polls the token endpoint
/// at the provider's interval, one timer at a time, until tokens or an end.
/// The tokens finish the session as an exchange does (`exchanged`): `Wait`
/// hands them over, an account keeps them.
extension Router {
    /// `BeginDeviceLogin` with its metadata: first the device authorization
    /// request, then (with its codes in `pending`) the session.
    func beginDevice(_ pending: PendingBegin, held: OperationID?, ids: inout OperationIDs, now: Int64) -> Transition {
        func refuse(_ error: RouterError) -> Transition { refuseDevice(pending, held: held, error) }
        let r = pending.request
        if let e = Self.deviceRefusal(r) { return refuse(e) }
        guard let issuer = r.issuer, let clientID = r.clientID else {
            return refuse(.invalid("a device login needs issuer and client_id"))
        }
        guard let metadata = r.discovered else {
            return refuse(RouterError(.internalError, "a device login began without its provider's metadata"))
        }
        guard let endpoint = r.deviceAuthorizationEndpoint ?? metadata.deviceAuthorizationEndpoint else {
            return refuse(
                .invalid(
                    "\(issuer) offers no device login: its metadata lists no device_authorization_endpoint (RFC 8628 §4); sign in with a browser instead, here or on another machine (linkctl login NAME --no-browser prints the URL), or, if the provider has the grant without listing it, give the account its device_authorization_endpoint"
                ))
        }
        do { try admit(owner: pending.caller) } catch { return refuse(error) }
        let scope = r.scope ?? "openid"
        let secrets: SessionSecrets
        switch pending.inputs.secrets {
        case .success(let s): secrets = s
        case .failure(let e): return refuse(e)
        }
        var dpop: DPoPBinding?
        do throws(RouterError) {
            // The polls prove the key; the code the person approves is bound by the proof on the last one (RFC 9449
            // §5).
            if let m = r.dpop, let required = try DPoPBinding.decide(m, metadata: metadata) {
                guard let key = secrets.dpopKey else {
                    return refuse(
                        RouterError(
                            .internalError,
                            "the daemon drew no DPoP key for a login whose tokens must be bound to one; nothing was started"
                        ))
                }
                dpop = DPoPBinding(key: key, required: required)
            }
        } catch {
            return refuse(error)
        }
        guard let authorization = pending.deviceAuthorization else {
            let op = held ?? ids.take()
            return Transition(
                core: [.track(op, .begin(pending))],
                effects: [
                    .start(
                        op,
                        .authorizeDevice(
                            DeviceGrant.Request(
                                endpoint: endpoint, clientID: clientID, scope: scope, parameters: r.extraParams)))
                ],
                reply: held == nil ? .held(op) : .none)
        }
        if session(secrets.id) != nil {
            return refuse(
                RouterError(
                    .internalError, "the daemon drew a session id already in use (a 256-bit coincidence); try again"))
        }
        let exchange = TokenExchange(
            clientID: clientID, tokenEndpoint: metadata.tokenEndpoint, jwksURI: metadata.jwksURI,
            expectsIDToken: scope.split(separator: " ").contains("openid"), account: r.account,
            accountInMemory: r.accountStore == .memory, dpop: dpop)
        let flow = DeviceFlow(issuer: metadata.issuer, exchange: exchange, authorization: authorization)
        let session = Session(
            id: secrets.id, owner: Caller(name: pending.caller, app: callers[pending.caller] ?? .unknown),
            claimTokenDigest: pending.inputs.claimTokenDigest,
            // At most the longest any session lives (a restore expires a longer one).
            flow: .device(flow), createdAt: now,
            expiresAt: now + min(Int64(authorization.expiresIn), Int64(limits.maxTTL)))
        let poll = ids.take()
        var t = Transition(
            changes: [.insert(session)], core: [.track(poll, .devicePoll(session.id, inFlight: false))],
            effects: [
                .scheduleDeadline(session.id, at: deadline(of: session)),
                .start(poll, .timer(milliseconds: flow.interval * 1000)),
                .log(
                    LogLine(
                        .info,
                        "Began \(session.logTag) for \(pending.caller): a device login at \(metadata.issuer), polled every \(flow.interval) s for \(session.expiresAt - now) s"
                    )),
            ])
        let answer = Transition.Reply.deviceBegun(session.id, flow, expiresAt: session.expiresAt)
        if let held {
            t.effects.append(.answer(held, answer))
            t.core.append(.finish(held))
        } else {
            t.reply = answer
        }
        // Who the owner is, as for any session (shown as `OwnerApp`); an account's caller is known already.
        return t.then(identifying(pending.caller, &ids))
    }

    /// What makes `r` no device login, before anything is asked of a provider: the
    /// options of a browser login, or no provider to ask.
    static func deviceRefusal(_ r: SessionRequest) -> RouterError? {
        if let name = r.browserOnlyOption {
            return .invalid(
                "\(name) has no meaning in a device login (RFC 8628): nothing is opened here and no callback comes back"
            )
        }
        guard let issuer = r.issuer, let clientID = r.clientID else {
            return .invalid("a device login needs issuer and client_id, or an account that has them")
        }
        // The same checks as a browser login's: each value goes into the request and the stored session as a line.
        if issuer.utf8.count > 2048 || clientID.utf8.count > 2048 || !OAuthText.isVisibleText(clientID) {
            return .invalid(
                "client_id must be printable ASCII (RFC 6749 Appendix A), and issuer and client_id at most 2048 bytes")
        }
        if let scope = r.scope, !OAuthText.isScope(scope) {
            return .invalid("scope must be space-separated tokens of printable ASCII (RFC 6749 §3.3)")
        }
        if r.extraParams.contains(where: {
            !OAuthText.isVisibleText($0.key) || !(OAuthText.isVisibleText($0.value) || $0.value.isEmpty)
        }) {
            return .invalid("extra_params must be printable ASCII")
        }
        return nil
    }

    /// A `BeginDeviceLogin` refused: its held call hears why, or its reply says it.
    func refuseDevice(_ pending: PendingBegin, held: OperationID?, _ error: RouterError) -> Transition {
        refusingBegin(
            held: held, error, LogLine(.info, "Refused BeginDeviceLogin from \(pending.caller): \(error.message)"))
    }

    /// The interval is up: one poll, under the same operation, while the session waits.
    func pollDevice(_ id: SessionID, op: OperationID) -> Transition {
        guard let s = session(id), s.status == .pending, case .device(let d) = s.flow, let code = d.deviceCode else {
            return Transition(core: [.finish(op)])
        }
        let grant = TokenGrant(
            tokenEndpoint: d.exchange.tokenEndpoint, jwksURI: d.exchange.jwksURI,
            expected: IDTokenClaims.Expected(issuer: d.issuer, clientID: d.exchange.clientID, nonce: nil),
            requiresIDToken: false,
            dpop: d.exchange.dpop)
        // Tracked as in flight: a stop now would lose the answer (tokens the provider gives once).
        return Transition(
            core: [.track(op, .devicePoll(id, inFlight: true))],
            effects: [.start(op, .pollDevice(grant, deviceCode: code))])
    }

    /// A poll's answer: tokens finish the session; pending waits the interval again,
    /// `slow_down` a longer one for good; anything else ends it (`DeviceGrant.step`).
    func polledDevice(_ id: SessionID, op: OperationID, _ outcome: Result<TokenSet, SessionFailure>, now: Int64)
        -> Transition
    {
        let done = Transition(core: [.finish(op)])
        guard let s = session(id), s.status == .pending, case .device(var d) = s.flow else { return done }
        let failure: SessionFailure
        switch outcome {
        case .success: return done.then(exchanged(id, outcome, now: now))
        case .failure(let f): failure = f
        }
        switch DeviceGrant.step(after: failure, interval: d.interval, now: now, deadline: s.expiresAt) {
        case .poll(let interval):
            var t = Transition(
                core: [.track(op, .devicePoll(id, inFlight: false))], ifWriteFails: .keepInMemory,
                effects: [.start(op, .timer(milliseconds: interval * 1000))])
            if interval != d.interval {
                d.interval = interval
                var slowed = s
                slowed.flow = .device(d)
                t.changes = [.update(slowed)]
                t.effects.append(
                    .log(LogLine(.info, "The provider asked \(s.logTag) to slow down: polling every \(interval) s now"))
                )
            }
            return t
        case .end(let e):
            let failed = s.finished(
                .failed,
                failure: SessionFailure(code: e.code, providerError: failure.providerError, message: e.message),
                now: now
            ).wiped()
            var t = finishing(failed)
            t.changes = [.update(failed)]
            t.ifWriteFails = .keepInMemory
            t.effects.append(.log(LogLine(.notice, "Device grant for \(s.logTag) ended: \(e.message)")))
            return done.then(t)
        }
    }
}
