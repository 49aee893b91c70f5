/// A signed-out account's token revoked at its provider (RFC 7009): the
/// issuer's metadata (cached, as a rule), then the request. Nothing waits on
/// it: signing out here never waits on a provider; the log says how it went.
public struct Revoking: OperationMachine {
    public let revocation: Revocation

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

    init(_ revocation: Revocation) { self.revocation = revocation }

    /// The revocation of `tokens`' refresh token (else access token), if there is one to revoke.
    static func start(_ account: Account, _ tokens: TokenSet, _ turn: inout Turn) -> Transition {
        guard let r = Revocation(account, tokens) else { return Transition() }
        let op = turn.ids.take()
        return Transition(
            core: [.track(op, .revoking(Revoking(r)))],
            effects: [.start(op, .revoking(.discover(issuer: account.issuer)))])
    }

    mutating func handle(_ event: Event, op: OperationID, _ turn: inout Turn) -> Transition {
        let (name, hint) = (revocation.account.name, revocation.hint)
        switch event {
        case .metadata(.success(let m)):
            guard let endpoint = revocation.endpoint ?? m.revocationEndpoint else {
                return Transition(
                    core: [.finish(op)],
                    effects: [
                        .log(
                            LogLine(
                                .info,
                                "\(name)'s provider offers no revocation endpoint; its tokens are forgotten here, and live at the provider until they expire"
                            ))
                    ])
            }
            return Transition(effects: [.start(op, .revoking(.revoke(revocation, endpoint: endpoint)))])
        case .metadata(.failure(let e)):
            return Transition(
                core: [.finish(op)],
                effects: [.log(LogLine(.warning, "\(name)'s tokens were not revoked at the provider: \(e.message)"))])
        case .revoked(nil):
            return Transition(
                core: [.finish(op)], effects: [.log(LogLine(.info, "\(name)'s \(hint) revoked at the provider"))])
        case .revoked(let e?):
            return Transition(
                core: [.finish(op)],
                effects: [
                    .log(LogLine(.warning, "\(name)'s \(hint) was not revoked at the provider: \(e.message)"))
                ])
        }
    }
}
