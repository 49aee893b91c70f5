/// A device login's begin (RFC 8628): with its metadata, the device
/// authorization request; with its codes, the session, which shows them to
/// its owner and polls (`DeviceLogin+Polls.swift`).
extension Begin {
    func nextDevice(held: OperationID?, _ turn: inout Turn) -> Next {
        let r = request
        guard let issuer = r.issuer, let clientID = r.clientID else {
            return .end(refusing(.invalid("a device login needs issuer and client_id"), held: held))
        }
        guard let metadata else {
            return .end(
                refusing(
                    RouterError(.internalError, "a device login began without its provider's metadata"), held: held))
        }
        guard let endpoint = r.deviceAuthorizationEndpoint ?? metadata.deviceAuthorizationEndpoint else {
            return .end(
                refusing(
                    .invalid(
                        "\(issuer) offers no device login: its metadata lists no device_authorization_endpoint (RFC 8628 §4); sign in with a browser instead, here or on another machine (linkctl login NAME --no-browser prints the URL), or, if the provider has the grant without listing it, give the account its device_authorization_endpoint"
                    ), held: held))
        }
        do { try turn.core.admit(owner: caller) } catch { return .end(refusing(error, held: held)) }
        let scope = r.scope ?? "openid"
        let secrets: SessionSecrets
        switch inputs.secrets {
        case .success(let s): secrets = s
        case .failure(let e): return .end(refusing(e, held: held))
        }
        var dpop: DPoPBinding?
        do throws(RouterError) {
            // The polls prove the key; the code the person approves is bound by the proof on the last one (RFC 9449
            // §5).
            if let m = r.dpop, let required = try DPoPBinding.decide(m, metadata: metadata) {
                guard let key = secrets.dpopKey else {
                    return .end(
                        refusing(
                            RouterError(
                                .internalError,
                                "the daemon drew no DPoP key for a login whose tokens must be bound to one; nothing was started"
                            ),
                            held: held))
                }
                dpop = DPoPBinding(key: key, required: required)
            }
        } catch {
            return .end(refusing(error, held: held))
        }
        let stepUp: StepUp?
        do { stepUp = try r.stepUp(exchanged: true, scope: scope) } catch { return .end(refusing(error, held: held)) }
        guard let authorization = deviceAuthorization else {
            return .wait(
                .authorizeDevice(
                    DeviceGrant.Request(
                        endpoint: endpoint, clientID: clientID, scope: scope, parameters: r.parameters(with: stepUp))
                ))
        }
        if turn.core.session(secrets.id) != nil {
            return .end(
                refusing(
                    RouterError(
                        .internalError, "the daemon drew a session id already in use (a 256-bit coincidence); try again"
                    ),
                    held: held))
        }
        let exchange = TokenExchange(
            clientID: clientID, tokenEndpoint: metadata.tokenEndpoint, jwksURI: metadata.jwksURI,
            expectsIDToken: scope.split(separator: " ").contains("openid"), account: r.account,
            accountInMemory: r.accountStore == .memory, dpop: dpop, stepUp: stepUp)
        let device = DeviceLogin(issuer: metadata.issuer, exchange: exchange, authorization: authorization)
        let now = turn.now
        let session = Session(
            id: secrets.id, owner: Caller(name: caller, app: turn.core.callers[caller] ?? .unknown),
            claimTokenDigest: inputs.claimTokenDigest, login: .device(device), createdAt: now,
            // At most the longest any session lives (a restore would expire a longer one).
            expiresAt: now + min(Int64(authorization.expiresIn), Int64(turn.limits.maxTTL)))
        var t = Transition(
            changes: [.insert(session)],
            effects: [
                .scheduleDeadline(session.id, at: turn.core.deadline(of: session)),
                .log(
                    LogLine(
                        .info,
                        "Began \(session.logTag) for \(caller): a device login at \(metadata.issuer), polled every \(device.interval) s for \(session.expiresAt - now) s"
                    )),
            ])
        t = t.then(device.waitingToPoll(session.id, &turn))
        return .end(
            begun(t, session, .deviceBegun(session.id, device, expiresAt: session.expiresAt), held: held, &turn))
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
}
