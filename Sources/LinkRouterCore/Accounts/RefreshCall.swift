/// A `RefreshTokens` call (a refresh token the caller holds, for new tokens
/// at the issuer's token endpoint; the daemon keeps nothing): the issuer's
/// metadata, then the refresh, then the answer.
public struct RefreshCall: OperationMachine {
    public let request: RefreshRequest
    public let caller: String

    public enum Work: Sendable, Equatable {
        case discover(issuer: String)
        case refresh(TokenGrant, refreshToken: String, scope: String?)
    }

    public enum Event: Sendable {
        case metadata(Result<ProviderMetadata, RouterError>)
        case refreshed(Result<TokenSet, SessionFailure>)
    }

    var running: Running { .refresh(self) }

    init?(_ running: Running) {
        guard case .refresh(let m) = running else { return nil }
        self = m
    }

    public init(request: RefreshRequest, caller: String) {
        self.request = request
        self.caller = caller
    }

    /// `RefreshTokens(options)`: the call is held for the answer.
    static func start(_ request: RefreshRequest, caller: String, _ turn: inout Turn) -> Transition {
        let checked: (issuer: String, clientID: String, refreshToken: String, scope: String?)
        do { checked = try request.checked(limits: turn.limits) } catch { return .refused(error) }
        let op = turn.ids.take()
        return Transition(
            core: [.track(op, .refresh(RefreshCall(request: request, caller: caller)))],
            effects: [.start(op, .refresh(.discover(issuer: checked.issuer)))], reply: .held(op))
    }

    mutating func handle(_ event: Event, op: OperationID, _ turn: inout Turn) -> Transition {
        let caller = caller
        switch event {
        case .metadata(.success(let metadata)):
            guard let checked = try? request.checked(limits: turn.limits) else {
                return Transition(core: [.finish(op)])
            }
            let grant = TokenGrant(
                tokenEndpoint: metadata.tokenEndpoint, jwksURI: metadata.jwksURI,
                expected: IDTokenClaims.Expected(issuer: metadata.issuer, clientID: checked.clientID, nonce: nil),
                requiresIDToken: false)
            return Transition(
                effects: [
                    .start(op, .refresh(.refresh(grant, refreshToken: checked.refreshToken, scope: checked.scope)))
                ])
        case .metadata(.failure(let e)):
            return Transition(
                core: [.finish(op)],
                effects: [
                    .answer(op, .refused(e)), .log(LogLine(.notice, "Discovery for \(caller) failed: \(e.message)")),
                ])
        case .refreshed(.success(let tokens)):
            return Transition(core: [.finish(op)], effects: [.answer(op, .tokens(tokens))])
        case .refreshed(.failure(let f)):
            return Transition(
                core: [.finish(op)],
                effects: [
                    .answer(op, .refused(f.error)),
                    .log(LogLine(.notice, "RefreshTokens for \(caller) failed: \(f.message)")),
                ])
        }
    }
}
