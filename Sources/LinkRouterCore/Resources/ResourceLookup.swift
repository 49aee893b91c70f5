/// An account call that names a protected resource by its URL instead of
/// an issuer (RFC 9728): `GetToken` with `for`, or `AddAccount` with `for`.
/// The resource's metadata comes first (cached by the providers component for
/// its HTTP lifetime); then the call goes on as the call it makes of it,
/// under the same operation:
///
/// - a `GetToken` for a token with `resource` set to the URL (RFC 8707) from
///   the account named, which must sign in at one of the resource's
///   authorization servers, or else the caller's account at the first of them
///   it has one at (its default among several, `IssuerChoice`). A sandboxed
///   app reaches the person's account only by name, through the consent
///   prompt, which names the resource;
/// - an `AddAccount` at the resource's first authorization server (or the
///   issuer given, if the resource names it), its sign-ins asking for the
///   resource and, unless a scope is given, `openid` and the scopes the
///   resource lists; with no `client_id`, the client is registered there.
public struct ResourceLookup: OperationMachine {
    /// The call as made, `for` and all.
    let call: AccountCall
    /// The resource's URL, checked.
    let resource: String
    /// The accounts and the caller's app as the call found them.
    let accounts: [Account]
    let app: CallerApp
    public let caller: String

    public enum Work: Sendable, Equatable {
        /// The metadata of the resource at this URL, checked for it: from its well-known place
        /// (`ProtectedResource.metadataURL`), or from where the resource's own challenge said (`resource_metadata`).
        case metadata(resource: String, at: String)
    }

    public enum Event: Sendable {
        case metadata(Result<ProtectedResource, RouterError>)
    }

    var running: Running { .resourceLookup(self) }

    init?(_ running: Running) {
        guard case .resourceLookup(let m) = running else { return nil }
        self = m
    }

    init(_ call: AccountCall, resource: String, accounts: [Account], app: CallerApp, caller: String) {
        self.call = call
        self.resource = resource
        self.accounts = accounts
        self.app = app
        self.caller = caller
    }

    /// The lookup begun for `call`, which names the resource `url` (checked here), holding the call.
    static func start(
        _ call: AccountCall, for url: String, accounts: [Account], app: CallerApp, caller: String,
        held: OperationID?, _ turn: inout Turn
    ) throws(RouterError) -> Transition {
        let resource = try ProtectedResource.check(url, maxLength: turn.limits.maxOptionBytes)
        var at = ProtectedResource.metadataURL(for: resource)
        if case .getToken(_, let request) = call {
            if request.issuer != nil || !request.resources.isEmpty {
                throw .invalid("for names the resource and finds its issuer: give it without issuer or resource")
            }
            if let given = request.resourceMetadata {
                at = try ProtectedResource.checkMetadataURL(given, maxLength: turn.limits.maxOptionBytes)
            }
        }
        guard let at else { throw .invalid("\(resource) is not a resource URL") }
        let op = held ?? turn.ids.take()
        let machine = ResourceLookup(call, resource: resource, accounts: accounts, app: app, caller: caller)
        var t = Transition(
            core: [.track(op, .resourceLookup(machine))],
            effects: [.start(op, .resourceLookup(.metadata(resource: resource, at: at)))])
        if held == nil { t.reply = .held(op) }
        return t
    }

    mutating func handle(_ event: Event, op: OperationID, _ turn: inout Turn) -> Transition {
        switch event {
        case .metadata(.failure(let e)):
            return Transition(core: [.finish(op)], effects: [.answer(op, .refused(e))])
        case .metadata(.success(let found)):
            let resolved: AccountCall
            do throws(RouterError) { resolved = try resolve(found) } catch {
                return Transition(core: [.finish(op)], effects: [.answer(op, .refused(error))])
            }
            // The call goes on as the call it now is, under the same operation.
            return Transition(core: [.finish(op)]).then(
                resolved.carryOn(accounts: accounts, app: app, caller: caller, held: op, &turn))
        }
    }

    /// The call the metadata makes of this one.
    func resolve(_ found: ProtectedResource) throws(RouterError) -> AccountCall {
        switch call {
        case .getToken(let name, let request): return .getToken(name, try token(name, request, found))
        case .add(let name, let request): return .add(name, try declaration(request, found))
        case .list, .begin, .logout, .reject, .remove, .revokeGrant, .forward:
            // Only `GetToken` and `AddAccount` take `for`; any other call goes on as it was made.
            return call
        }
    }

    /// A `GetToken`'s request for the resource: `resource` set, and the account's issuer when none is named.
    func token(_ name: String, _ request: TokenRequest, _ found: ProtectedResource) throws(RouterError) -> TokenRequest
    {
        var r = request
        r.forResource = nil
        r.resourceMetadata = nil
        r.resources = [found.resource]
        r.resourceScopes = found.scopesSupported
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
                    "no account of yours signs in where \(found.resource) says to (\(servers)); add one: linkctl account add NAME --for \(found.resource) (or --issuer \(found.authorizationServers[0]))"
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

    /// An `AddAccount`'s declaration for the resource: at its first authorization server (or the issuer given, which
    /// it must name), asking for the resource, and for its scopes unless a scope is given.
    func declaration(_ request: AccountRequest, _ found: ProtectedResource) throws(RouterError) -> AccountRequest {
        var r = request
        r.forResource = nil
        if let issuer = r.issuer {
            guard found.authorizationServers.contains(where: { IssuerChoice.same(issuer, $0) }) else {
                throw RouterError(
                    .invalidArgument,
                    "\(found.resource) takes tokens from \(found.authorizationServers.joined(separator: ", ")), not from \(issuer)"
                )
            }
        } else {
            r.issuer = found.authorizationServers[0]
        }
        if r.resource == nil { r.resource = found.resource }
        if r.scope == nil {
            var scopes = [Account.defaultScope]
            for s in found.scopesSupported where !scopes.contains(s) { scopes.append(s) }
            r.scope = scopes.joined(separator: " ")
        }
        return r
    }
}
