/// The one event for everything the daemon waited on: an operation's
/// outcome. What it means comes from what the core remembered when the
/// operation began (`PendingOperation`); an outcome nobody needs any more
/// (its caller left, its session ended) finds nothing and does nothing.
extension Router {
    public func completed(_ op: OperationID, _ result: OperationResult, now: Int64) -> Transition {
        guard let pending = operations[op] else { return Transition() }
        var t = outcome(op, pending, result, now: now)
        // Only a held BeginSession has someone to hear StorageFailed (its session
        // is then not begun); every other outcome is taken in and logged.
        if case .begin = pending {} else { t.ifWriteFails = .keepInMemory }
        return t
    }

    private func outcome(_ op: OperationID, _ pending: PendingOperation, _ result: OperationResult, now: Int64)
        -> Transition
    {
        var ids = newOperationIDs
        let done = Transition(core: [.finish(op)])
        switch (pending, result) {
        case (.waitTimeout(let wait, let ms), .fired):
            guard case .wait(let id, _, let login, _)? = operations[wait] else { return done }
            let status = session(id)?.status.rawValue ?? "gone"
            let e = RouterError(
                .timeout,
                "no callback arrived within \(ms) ms; the session is still \(status) and can be waited for again")
            return Transition(
                core: [.finish(op), .finish(wait)],
                effects: [.answer(wait, login ? .loggedIn(id, .failure(e)) : .refused(e))])

        case (.begin(var b), .metadata(let r)):
            switch r {
            case .success(let metadata):
                b.request.discovered = metadata
                return begin(b, held: op, ids: &ids, now: now)
            case .failure(let e):
                let caller = b.caller
                return Transition(
                    core: [.finish(op)],
                    effects: [
                        .answer(op, .refused(e)),
                        .log(LogLine(.notice, "Discovery for \(caller) failed: \(e.message)")),
                    ])
            }

        case (.begin(var b), .listening(let r)):
            guard case .success(let secrets) = b.inputs.secrets else { return done }
            switch r {
            case .success(let port):
                b.port = port
                var t = begin(b, held: op, ids: &ids, now: now)
                // Refused after all (a limit reached meanwhile): the listener goes with the request.
                if t.endsWithoutSession(op) { t.effects.append(.closeListener(secrets.id)) }
                return t
            case .failure(let e):
                let caller = b.caller
                return Transition(
                    core: [.finish(op)],
                    effects: [
                        .answer(op, .refused(e)),
                        .log(LogLine(.info, "Refused BeginSession from \(caller): \(e.message)")),
                    ])
            }

        case (.begin(var b), .pushed(let r)):
            guard case .success(let secrets) = b.inputs.secrets else { return done }
            // A loopback listener was bound for the request: it goes with it when the request does.
            let listener: [Effect] = b.port == nil ? [] : [.closeListener(secrets.id)]
            switch r {
            case .success(let requestURI):
                b.requestURI = requestURI
                var t = begin(b, held: op, ids: &ids, now: now)
                if t.endsWithoutSession(op) { t.effects += listener }
                return t
            case .failure(let e):
                let caller = b.caller
                return Transition(
                    core: [.finish(op)],
                    effects: [.answer(op, .refused(e))] + listener + [
                        .log(LogLine(.notice, "Refused BeginSession from \(caller): \(e.message)"))
                    ])
            }

        case (.begin(var b), .deviceAuthorized(let r)):
            switch r {
            case .success(let authorization):
                b.deviceAuthorization = authorization
                return begin(b, held: op, ids: &ids, now: now)
            case .failure(let e):
                let caller = b.caller
                return Transition(
                    core: [.finish(op)],
                    effects: [
                        .answer(op, .refused(e)),
                        .log(LogLine(.notice, "Refused BeginDeviceLogin from \(caller): \(e.message)")),
                    ])
            }

        case (.devicePoll(let id, _), .fired):
            return pollDevice(id, op: op)

        case (.devicePoll(let id, _), .tokens(let outcome)):
            return polledDevice(id, op: op, outcome, now: now)

        case (.deliver(let url, let app, let answers), .delivered(let r)):
            var t = done
            switch r {
            case .success(let outcome):
                if answers { t.effects.append(.answer(op, .routed(outcome))) }
                t.effects.append(.log(LogLine(.info, "\(app.id) took the link")))
            case .failure(let e) where e.code == .appFailed && SchemeRule.isWebLink(url):
                // A web link is not lost: the browser takes it, and the click hears so.
                t.effects = [.openBrowser(url, in: .web)] + (answers ? [.answer(op, .routed(.passthrough))] : [])
                t.effects.append(.log(LogLine(.warning, "\(e.message); opening it in the browser instead")))
            case .failure(let e):
                if answers { t.effects.append(.answer(op, .refused(e))) }
                t.effects.append(.log(LogLine(.warning, e.message)))
                // Nobody else may ever hear of it: the person who clicked does.
                if e.code == .appFailed {
                    t.effects.append(.notify(summary: "A link could not be opened", body: e.message))
                }
            }
            return t

        case (.redeem(let id), .tokens(let outcome)):
            return done.then(exchanged(id, outcome, now: now))

        case (.refresh(let r), .metadata(let m)):
            switch m {
            case .success(let metadata):
                guard let checked = try? r.request.checked(limits: limits) else { return done }
                let grant = TokenGrant(
                    tokenEndpoint: metadata.tokenEndpoint, jwksURI: metadata.jwksURI,
                    expected: IDTokenClaims.Expected(issuer: metadata.issuer, clientID: checked.clientID, nonce: nil),
                    requiresIDToken: false)
                return Transition(effects: [
                    .start(op, .refresh(grant, refreshToken: checked.refreshToken, scope: checked.scope))
                ])
            case .failure(let e):
                return Transition(
                    core: [.finish(op)],
                    effects: [
                        .answer(op, .refused(e)),
                        .log(LogLine(.notice, "Discovery for \(r.caller) failed: \(e.message)")),
                    ])
            }

        case (.refresh(let r), .tokens(let outcome)):
            switch outcome {
            case .success(let tokens):
                return Transition(core: [.finish(op)], effects: [.answer(op, .tokens(tokens))])
            case .failure(let f):
                return Transition(
                    core: [.finish(op)],
                    effects: [
                        .answer(op, .refused(f.error)),
                        .log(LogLine(.notice, "RefreshTokens for \(r.caller) failed: \(f.message)")),
                    ])
            }

        case (.relisten(let id), .listening(let r)):
            guard case .failure(let e) = r else { return done }
            return done.then(listenerFailed(id, reason: e.message, now: now))

        case (.identify(let name), .identified(let app)):
            // Recorded and shown on sessions; account calls held for it go on, each seeing the accounts its app may.
            guard callers[name] != nil else { return done }
            var t = Transition(core: [.finish(op), .caller(name, app)], ifWriteFails: .keepInMemory)
            var states = accountTokens
            for (held, p) in operations.sorted(by: { $0.key < $1.key }) {
                guard case .accountCall(let call, let accounts, let caller) = p, caller == name else { continue }
                if app == .unknown {
                    t = t.then(Transition(core: [.finish(held)], effects: [.answer(held, refusal(for: call))]))
                } else {
                    t = t.then(
                        carryOn(
                            call, accounts: accounts, app: app, caller: caller, held: held, ids: &ids, states: &states,
                            now: now))
                }
            }
            for s in all where s.ownerName == name && s.owner?.app != app {
                var updated = s
                updated.owner = Caller(name: name, app: app)
                t.changes.append(.update(updated))
            }
            if app != .host && app != .unknown { t.effects.append(.log(LogLine(.info, "\(name) is \(app.label)"))) }
            return t

        case (.restore(let previous), .busNames(let r)):
            var t = done
            if case .failure(let e) = r {
                t.effects.append(
                    .log(
                        LogLine(
                            .warning,
                            "Could not ask the bus who is on it (\(e.message)); every stored owner is taken as gone")))
            }
            let bus: BusSnapshot? = if case .success(let b) = r { b } else { nil }
            return t.then(restored(previousBusID: previous, bus: bus, now: now))

        case (.logout(let key, let caller, let account?, var then), .keyring(let r)):
            // Read to be revoked (and its ID token named at the provider); deleted whatever the read said (a failed
            // read is not kept from the delete).
            if case .success(.tokens(let kept?)) = r { then?.request.idTokenHint = kept.idToken }
            var t = Transition(
                core: [.track(op, .logout(key, caller: caller, reading: nil, then: then))],
                effects: [.start(op, .keyringDelete(key))])
            if case .success(.tokens(let kept?)) = r { t = t.then(revoking(account, kept, ids: &ids)) }
            return t

        case (.revocation(let r), _):
            return revocationStep(op, r, result)

        case (.logout(let key, _, nil, let then), .keyring(let r)):
            switch r {
            case .success:
                // A `BeginLogout` goes on under the same held call: the provider's metadata, then its session.
                if let then { return beginKnown(then, held: op, ids: &ids, now: now) }
                return Transition(core: [.finish(op)], effects: [.answer(op, .none)])
            case .failure(let e):
                let unopened = then == nil ? "" : "; nothing was opened at the provider"
                let refusal = RouterError(
                    e.code,
                    "\(key.name) is signed out in this daemon, but the keyring still holds its tokens: \(e.message)\(unopened)"
                )
                return Transition(core: [.finish(op)], effects: [.answer(op, .refused(refusal))])
            }

        case (.accountFile(let change, let caller), .accountFile(let error)):
            return accountFileDone(op, change, caller: caller, error, ids: &ids)

        case (.tokenFlight(let f), _):
            if case .forgetting = f.stage { return done }
            let t = tokenFlight(op, f, result, now: now)
            return t.then(settlingLists(after: t))

        default:
            // The kind only: what a pending operation carries (a verifier, a refresh token) never reaches a log.
            return Transition(
                core: [.finish(op)],
                effects: [.log(LogLine(.error, "\(op) (\(pending.kind)) ended with an unexpected result; ignored"))])
        }
    }

    /// `RefreshTokens(options)`: the issuer's metadata, then the refresh; the call is held for the answer.
    public func refreshTokens(_ request: RefreshRequest, caller: String) -> Transition {
        let checked: (issuer: String, clientID: String, refreshToken: String, scope: String?)
        do { checked = try request.checked(limits: limits) } catch { return .refused(error) }
        var ids = newOperationIDs
        let op = ids.take()
        return Transition(
            core: [.track(op, .refresh(PendingRefresh(request: request, caller: caller)))],
            effects: [.start(op, .discover(issuer: checked.issuer))], reply: .held(op))
    }
}
