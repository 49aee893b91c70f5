/// A signed-out account's token revoked at its provider (RFC 7009): the
/// issuer's metadata (cached, as a rule), then the request. The sign-out here
/// never waits on it (the tokens are forgotten first); a `Logout` is answered
/// once it ends, with what the provider did (`SignOutOutcome`), so a person
/// is never told "signed out" of a refresh token that stays valid there. The
/// log says how it went either way.
public struct Revoking: OperationMachine {
    public let revocation: Revocation
    /// The `Logout` call answered with the outcome (held under this operation), if one waits.
    public var caller: String?
    /// Whether the provider's metadata names an `end_session_endpoint` (said with a revocation that did not happen).
    var endSession = false
    /// A removed account's registered client, deleted once the revocation ends (which needs the client still there);
    /// it answers the call held under the same operation.
    var then: ClientDeregistration?

    public enum Work: Sendable, Equatable {
        case discover(issuer: String)
        case revoke(Revocation, endpoint: String)
    }

    public enum Event: Sendable {
        case metadata(Result<ProviderMetadata, RouterError>)
        /// The provider revoked the token (nil), or why not.
        case revoked(RouterError?)
    }

    var running: Running { .revoking(self) }

    init?(_ running: Running) {
        guard case .revoking(let m) = running else { return nil }
        self = m
    }

    init(_ revocation: Revocation, caller: String? = nil) {
        self.revocation = revocation
        self.caller = caller
    }

    /// The revocation of `tokens`' refresh token (else access token), if there is one to revoke.
    static func start(_ account: Account, _ tokens: TokenSet, _ turn: inout Turn) -> Transition {
        guard let r = Revocation(account, tokens) else { return Transition() }
        let op = turn.ids.take()
        return Transition(
            core: [.track(op, .revoking(Revoking(r)))],
            effects: [.start(op, .revoking(.discover(issuer: account.issuer)))])
    }

    /// The revocation of `tokens` (nil: none were held) for the `Logout` held under `held`, which hears the outcome.
    static func answering(_ held: OperationID, caller: String, _ account: Account, _ tokens: TokenSet?) -> Transition {
        guard let tokens, let r = Revocation(account, tokens) else {
            return Transition(core: [.finish(held)], effects: [.answer(held, .signedOut(.nothingHeld))])
        }
        return Transition(
            core: [.finish(held), .track(held, .revoking(Revoking(r, caller: caller)))],
            effects: [.start(held, .revoking(.discover(issuer: account.issuer)))])
    }

    /// A `RemoveAccount` of an account whose client linkrouter registered: `tokens` revoked (when there are any),
    /// then the client deleted (`ClientDeregistration`), which answers the call held under `held`.
    static func thenDeregistering(_ held: OperationID, caller: String, _ account: Account, _ tokens: TokenSet?)
        -> Transition
    {
        let deregistration = ClientDeregistration(account: account, caller: caller)
        guard let tokens, let r = Revocation(account, tokens) else {
            return Transition(core: [.finish(held)]).then(deregistration.start(held))
        }
        var m = Revoking(r)
        m.then = deregistration
        return Transition(
            core: [.finish(held), .track(held, .revoking(m))],
            effects: [.start(held, .revoking(.discover(issuer: account.issuer)))])
    }

    /// The machine's end: logged, and said to the `Logout` that waits, if one does, or the client's deletion begun.
    private func ending(_ op: OperationID, _ outcome: SignOutOutcome, _ line: LogLine) -> Transition {
        if let then { return Transition(core: [.finish(op)], effects: [.log(line)]).then(then.start(op)) }
        return Transition(
            core: [.finish(op)], effects: [.log(line)] + (caller == nil ? [] : [.answer(op, .signedOut(outcome))]))
    }

    mutating func handle(_ event: Event, op: OperationID, _ turn: inout Turn) -> Transition {
        let (name, hint) = (revocation.account.name, revocation.hint)
        switch event {
        case .metadata(.success(let m)):
            endSession = m.endSessionEndpoint != nil
            guard let endpoint = revocation.endpoint ?? m.revocationEndpoint else {
                return ending(
                    op, .notOffered(endSession: endSession),
                    LogLine(
                        .info,
                        "\(name)'s provider offers no revocation endpoint; its tokens are forgotten here, and live at the provider until they expire"
                    ))
            }
            return Transition(effects: [.start(op, .revoking(.revoke(revocation, endpoint: endpoint)))])
        case .metadata(.failure(let e)):
            return ending(
                op, .failed(e.message, endSession: false),
                LogLine(.warning, "\(name)'s tokens were not revoked at the provider: \(e.message)"))
        case .revoked(nil):
            return ending(op, .revoked(hint: hint), LogLine(.info, "\(name)'s \(hint) revoked at the provider"))
        case .revoked(let e?):
            return ending(
                op, .failed(e.message, endSession: endSession),
                LogLine(.warning, "\(name)'s \(hint) was not revoked at the provider: \(e.message)"))
        }
    }
}
