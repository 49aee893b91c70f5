/// A `GetToken` for a resource named by its URL (`for`, RFC 9728): the
/// resource's metadata first (cached by the providers component for its HTTP
/// lifetime), then the call goes on as a `GetToken` for a token with
/// `resource` set to it (RFC 8707) from the caller's account at an issuer the
/// resource names — the one named in the call, which must sign in there, or
/// else the first of the resource's authorization servers the caller has an
/// account at (its default among several, `IssuerChoice`). A sandboxed app
/// reaches the person's account only by name, through the consent prompt,
/// which names the resource.
public struct ResourceLookup: OperationMachine {
    public let name: String
    let request: TokenRequest
    /// The accounts and the caller's app as the call found them.
    let accounts: [Account]
    let app: CallerApp
    public let caller: String

    public enum Work: Sendable, Equatable {
        /// The metadata of the resource at this URL (`ProtectedResource.metadataURL`), checked for it.
        case metadata(resource: String)
    }

    public enum Event: Sendable {
        case metadata(Result<ProtectedResource, RouterError>)
    }

    var running: Running { .resourceLookup(self) }

    init?(_ running: Running) {
        guard case .resourceLookup(let m) = running else { return nil }
        self = m
    }

    init(name: String, request: TokenRequest, accounts: [Account], app: CallerApp, caller: String) {
        self.name = name
        self.request = request
        self.accounts = accounts
        self.app = app
        self.caller = caller
    }

    /// The lookup begun for `GetToken(name, request)` with `for` (checked here), holding the call.
    static func start(
        _ name: String, _ request: TokenRequest, accounts: [Account], app: CallerApp, caller: String,
        held: OperationID?, _ turn: inout Turn
    ) throws(RouterError) -> Transition {
        guard let url = request.forResource else { throw .invalid("for is missing") }
        let resource = try ProtectedResource.check(url, maxLength: turn.limits.maxOptionBytes)
        guard request.issuer == nil, request.resources.isEmpty else {
            throw .invalid("for names the resource and finds its issuer: give it without issuer or resource")
        }
        let op = held ?? turn.ids.take()
        let machine = ResourceLookup(name: name, request: request, accounts: accounts, app: app, caller: caller)
        var t = Transition(
            core: [.track(op, .resourceLookup(machine))],
            effects: [.start(op, .resourceLookup(.metadata(resource: resource)))])
        if held == nil { t.reply = .held(op) }
        return t
    }

    mutating func handle(_ event: Event, op: OperationID, _ turn: inout Turn) -> Transition {
        switch event {
        case .metadata(.failure(let e)):
            return Transition(core: [.finish(op)], effects: [.answer(op, .refused(e))])
        case .metadata(.success(let found)):
            let resolved: TokenRequest
            do throws(RouterError) { resolved = try resolve(found) } catch {
                return Transition(core: [.finish(op)], effects: [.answer(op, .refused(error))])
            }
            // The call goes on as the `GetToken` it now is, under the same operation.
            return Transition(core: [.finish(op)]).then(
                AccountCall.getToken(name, resolved).carryOn(
                    accounts: accounts, app: app, caller: caller, held: op, &turn))
        }
    }

    /// The `GetToken` the metadata makes of the call: the resource as `resource`, and the account's issuer.
    func resolve(_ found: ProtectedResource) throws(RouterError) -> TokenRequest {
        var r = request
        r.forResource = nil
        r.resources = [found.resource]
        let servers = found.authorizationServers.joined(separator: ", ")
        if name.isEmpty {
            let mine = accounts.filter { $0.owner.serves(app) }
            guard
                let issuer = found.authorizationServers.first(where: { server in
                    mine.contains { IssuerChoice.same($0.issuer, server) }
                })
            else {
                throw RouterError(
                    .unknownAccount,
                    "no account of yours signs in where \(found.resource) says to (\(servers)); add one: linkctl account add NAME --issuer \(found.authorizationServers[0])"
                )
            }
            r.issuer = issuer
        } else if let account = accounts.first(where: { $0.name == name && $0.owner.serves(app) })
            ?? accounts.first(where: { $0.name == name }),
            !found.authorizationServers.contains(where: { IssuerChoice.same(account.issuer, $0) })
        {
            throw RouterError(
                .accessDenied,
                "\(name) signs in at \(account.issuer), and \(found.resource) takes tokens from \(servers) only; its token is not sent there"
            )
        }
        return r
    }
}
