/// A call about accounts, decided once its caller's app is known: the host
/// user's programs see the user's and the administrator's accounts, a
/// sandboxed app only those it declared itself (`Account.Owner.serves`), so
/// a name is resolved only then. One that arrives before the caller is
/// identified is held (`HeldCall.account`) and carried on by `Identification`.
public enum AccountCall: Sendable, Equatable {
    case getToken(String, TokenRequest)
    case list
    /// A `BeginSession`/`Login`/`BeginLogout` whose request names an `account`.
    case begin(Begin)
    case logout(String)
    case reject(String, token: String)
    /// `AddAccount(name, options)`: declared, or replaced, for the caller.
    case add(String, AccountRequest)
    /// `RemoveAccount(name)`: the caller's declaration and its tokens gone.
    case remove(String)
    /// `RevokeGrant(app, account)`: the person's "Always allow" for that app ended (the host user's call only).
    case revokeGrant(app: CallerApp, account: String)
    /// `ForwardAgent(options)`: a socket for an `ssh -R` forward of the agent (the host user's call only).
    case forward(AgentForward)
}

extension AccountCall {
    /// What an oidc-agent client asking for a token calls itself, for the prompt.
    var applicationHint: String? {
        if case .getToken(_, let request) = self { request.applicationHint } else { nil }
    }
}

/// What `AddAccount`/`RemoveAccount` do to the declared accounts (`AccountFileWrite`).
public enum AccountFileChange: Sendable, Equatable {
    case add(Account, replacing: Account?)
    case remove(Account)
    /// The grants of `app` for the account ended.
    case revokeGrant(Account, CallerApp)
}

extension AccountCall {
    /// The call, with every declared account (`accounts`, all owners'):
    /// decided now for a known caller, else held (and the caller identified).
    /// An unknown caller (its app could not be found out) has no accounts:
    /// it is never taken for the host.
    func start(accounts: [Account], caller: String, _ turn: inout Turn) -> Transition {
        if let refusal = overLimit(caller, turn) { return Transition(reply: .refused(refusal)) }
        switch turn.core.callers[caller] {
        case .unknown?:
            // `.unknown` is both "being found out" and "could not be": only the first waits.
            let identifying = turn.core.running.values.contains {
                if case .identification(let i) = $0 { i.name == caller } else { false }
            }
            guard identifying else { return Transition(reply: refusal) }
            return holding(accounts: accounts, caller: caller, &turn)
        case let app?:
            return carryOn(accounts: accounts, app: app, caller: caller, held: nil, &turn)
        case nil:
            return holding(accounts: accounts, caller: caller, &turn).then(Identification.start(caller, &turn))
        }
    }

    /// Why a new account call of `caller` is refused before anything is held for it: its connection, or its app
    /// over all its connections, holds as many as `Limits` allows (each waits on a prompt, a keyring or a provider).
    private func overLimit(_ caller: String, _ turn: Turn) -> RouterError? {
        let limits = turn.limits
        if turn.core.held.accountCalls(of: caller) >= limits.maxHeldAccountCallsPerCaller {
            return RouterError(
                .limitsExceeded,
                "this connection has \(limits.maxHeldAccountCallsPerCaller) account calls waiting already; wait for their answers first"
            )
        }
        if let app = turn.core.callers[caller], app.isSandboxed,
            turn.core.held.accountCalls(ofApp: app) >= limits.maxHeldAccountCallsPerApp
        {
            return RouterError(
                .limitsExceeded,
                "\(app.label) has \(limits.maxHeldAccountCallsPerApp) account calls waiting already; wait for their answers first"
            )
        }
        return nil
    }

    /// A yes the person just gave (`ConsentPrompt`, Allow once): for this account and this target only, so a call
    /// queued behind the prompt for another target is asked about in its own turn.
    struct Consented: Sendable, Equatable {
        let account: AccountKey
        let target: TokenTarget
    }

    private func holding(accounts: [Account], caller: String, _ turn: inout Turn) -> Transition {
        let op = turn.ids.take()
        return Transition(core: [.hold(op, .account(self, accounts: accounts, caller: caller))], reply: .held(op))
    }

    /// The call, for a caller now known to be `app` (`held`: the operation its reply is held under).
    /// `consented`: what of the person's account the person has just allowed this app, this once (`ConsentPrompt`).
    func carryOn(
        accounts: [Account], app: CallerApp, caller: String, held: OperationID?, consented: Consented? = nil,
        _ turn: inout Turn
    ) -> Transition {
        let mine = accounts.filter { $0.owner.serves(app) }
        func named(_ name: String) throws(RouterError) -> Account {
            guard let a = mine.first(where: { $0.name == name }) else { throw AccountKeeper.unknownAccount(name) }
            return a
        }
        // A sandboxed app asking for the person's account by name, or a host program for an account declared
        // `confirm=true`: allowed (once, or always), or the person is asked. What is asked for is checked and
        // normalised first, so the person is never shown (and a grant never keeps) a target the account could not
        // give, and two spellings of one target are one question.
        func theirs(_ name: String, _ request: TokenRequest?, handsOut: Bool) -> Consent {
            let a: Account
            if handsOut, app == .host, let own = mine.first(where: { $0.name == name }), own.confirm {
                a = own
            } else {
                guard !mine.contains(where: { $0.name == name }),
                    let person = accounts.first(where: { $0.name == name && $0.askable(by: app) })
                else { return .notAsked }
                a = person
            }
            let target: TokenTarget
            do throws(RouterError) {
                target = try TokenTarget.make(
                    scope: request?.scope, resources: request?.resources ?? [], audience: request?.audience,
                    granted: turn.keepers[a.key]?.tokens?.scope ?? a.scope, account: a.name)
            } catch {
                return .refused(error)
            }
            if consented == Consented(account: a.key, target: target) { return .allowed(a) }
            if app != .host {
                if a.granted(to: app, target) { return .allowed(a) }
                if let left = turn.keepers[a.key]?.coolingOff(app, now: turn.now) {
                    return .refused(
                        RouterError(
                            .accessDenied,
                            "\(a.name) is the person's account, and the person denied it to \(app.id) \(AccountKeeper.coolOffSeconds - left) s ago; it is not asked again for \(left) s"
                        ))
                }
            }
            return .asking(
                ConsentPrompt.asking(
                    self, accounts: accounts, app: app, caller: caller, account: a, target: target, held: held, &turn))
        }
        do throws(RouterError) {
            // A resource named by its URL: its metadata says where to sign in, then this call goes on.
            if let url = resourceNamed {
                return try ResourceLookup.start(
                    self, for: url, accounts: accounts, app: app, caller: caller, held: held, &turn)
            }
            switch self {
            case .getToken(let name, let request):
                var account: Account?
                if let issuer = request.issuer {
                    guard name.isEmpty else { throw .invalid("give an account's name or its issuer, not both") }
                    let picked = try IssuerChoice.pick(
                        issuer, among: mine, name: \.name, issuer: \.issuer, isDefault: \.isDefault)
                    account = picked
                    // Picked by issuer, the account is the caller's own; a `confirm=true` one still asks.
                    switch theirs(picked.name, request, handsOut: true) {
                    case .allowed(let a): account = a
                    case .asking(let asking): return asking
                    case .refused(let e): throw e
                    case .notAsked: break
                    }
                } else {
                    switch theirs(name, request, handsOut: true) {
                    case .allowed(let a): account = a
                    case .asking(let asking): return asking
                    case .refused(let e): throw e
                    case .notAsked: account = try named(name)
                    }
                }
                let chosen: Account
                if let account { chosen = account } else { chosen = try named(name) }
                return AccountKeeper.getToken(chosen, request, caller: caller, held: held, &turn)
            case .list:
                // The host user sees every account (whose it is, never its tokens); an app its own.
                return AccountKeeper.listing(app == .host ? accounts : mine, caller: caller, held: held, &turn)
            case .begin(var begin):
                let name = begin.request.account ?? ""
                let account: Account
                switch begin.flow {
                case .signOut: account = try named(name)
                case .code, .device:
                    switch theirs(name, nil, handsOut: false) {
                    case .allowed(let a): account = a
                    case .asking(let asking): return asking
                    case .refused(let e): throw e
                    case .notAsked:
                        account = try named(name)
                        // An app's own account signs in only with a client that is none of the person's (issue 44):
                        // one declared before the person's would otherwise sign in as the person's.
                        if case .app = account.owner,
                            Self.personsLookAlike(of: account, among: accounts, byName: false) != nil
                        {
                            throw Self.lookAlike(account.name)
                        }
                    }
                }
                try begin.request.use(account)
                // A sign-out at the provider (`BeginLogout`): signed out here first, whatever the provider does.
                if case .signOut = begin.flow {
                    return AccountKeeper.logout(account, caller: caller, held: held, then: begin, &turn)
                }
                return begin.proceed(held: held, &turn)
            case .logout(let name):
                return AccountKeeper.logout(try named(name), caller: caller, held: held, reports: true, &turn)
            case .reject(let name, let token):
                return AccountKeeper.rejecting(try named(name), token, &turn).answering(held, .none)
            case .add(let name, let request):
                return try adding(name, request, app: app, accounts: accounts, caller: caller, held: held, &turn)
            case .remove(let name):
                let account = try named(name)
                guard account.owner != .system else {
                    throw RouterError(
                        .accessDenied,
                        "\(name) is the administrator's (in /etc/linkrouter/accounts.d); only they can remove it")
                }
                return AccountFileWrite.start(.remove(account), caller: caller, held: held, &turn)
            case .revokeGrant(let grantee, let name):
                guard app == .host else {
                    throw RouterError(.accessDenied, "only the person, from outside any sandbox, ends a grant")
                }
                let account = try named(name)
                guard account.grants.contains(where: { $0.app == grantee }) else {
                    throw .invalid("\(grantee.label) has no grant for \(name); linkctl grants lists them")
                }
                return AccountFileWrite.start(.revokeGrant(account, grantee), caller: caller, held: held, &turn)
            case .forward(var forward):
                guard app == .host else {
                    throw RouterError(
                        .accessDenied, "only the person's own programs, outside any sandbox, forward the agent")
                }
                forward = try forward.checked(mine: mine)
                forward.owner = caller
                return Transition(effects: [.openForward(forward)]).answering(held, .forwarding(forward.path))
            }
        } catch {
            return Transition().answering(held, .refused(error))
        }
    }

    /// `AddAccount`: the account checked and declared for the caller (the
    /// host user's program: the user's; an app: that app's). The same
    /// declaration again changes nothing; a new one replaces the caller's own.
    private func adding(
        _ name: String, _ request: AccountRequest, app: CallerApp, accounts: [Account], caller: String,
        held: OperationID?, _ turn: inout Turn
    ) throws(RouterError) -> Transition {
        guard let owner = Account.Owner(declaring: app) else { throw AccountKeeper.unknownAccount(name) }
        let existing = accounts.first { $0.name == name && $0.owner.serves(app) }
        if existing?.owner == .system {
            throw RouterError(.accessDenied, "\(name) is declared by the administrator; choose another name")
        }
        var request = request
        if let existing, existing.registered != nil, request.clientID == nil || request.clientID == existing.clientID,
            request.issuer == existing.issuer
        {
            // Declared again as it was first (an app declares its account at every start): the client linkrouter
            // registered then is the account's still.
            request.clientID = existing.clientID
            request.clientName = existing.clientName
            request.registered = existing.registered?.rawValue
            request.registrationToken = nil
            if request.redirectURI == nil { request.redirectURI = existing.redirectURI }
        } else if let existing, existing.registered == .managed {
            throw RouterError(
                .invalidArgument,
                "\(name)'s client \(existing.clientID) was registered by linkrouter at \(existing.issuer); remove the account first (linkctl account remove \(name) deletes the client there), then declare it again"
            )
        }
        // Those being written or registered count too: calls held while the caller was identified each saw the same
        // list.
        let writing = turn.core.running.values.count {
            if case .accountFile(let w) = $0, case .add(let a, nil) = w.change { return a.owner == owner }
            if case .registration(let r) = $0 { return r.draft.owner == owner && r.replacing == nil }
            return false
        }
        if existing == nil, case .app = owner,
            accounts.count(where: { $0.owner == owner }) + writing >= turn.limits.maxAccountsPerApp
        {
            throw RouterError(
                .limitsExceeded,
                "\(app.label) has \(turn.limits.maxAccountsPerApp) accounts already; remove one first (RemoveAccount)")
        }
        if request.clientID == nil {
            // No client: linkrouter registers its own at the provider first (RFC 7591), then declares the account.
            return try ClientRegistration.start(
                name, request, owner: owner, replacing: existing, accounts: accounts, caller: caller, held: held, &turn)
        }
        let account = try Account.make(name: name, request, owner: owner, limits: turn.limits)
        if existing == account { return Transition().answering(held, .none) }
        // An app's account that would read as one of the person's (its name), or sign in as it (its provider and
        // client: a public client's id is no secret), is not the app's to declare: it asks for the person's by name,
        // and the person is asked (issue 44).
        if case .app = owner, Self.personsLookAlike(of: account, among: accounts, byName: true) != nil {
            throw Self.lookAlike(name)
        }
        // One default per issuer: the caller's others there are declared again without it.
        let clearing = account.defaultsItClears(among: accounts)
        return AccountFileWrite.start(
            .add(account, replacing: existing), clearing: clearing, caller: caller, held: held, &turn)
    }

    /// The person's account (the user's or the administrator's) that an app's `account` would pass for: one of the
    /// same issuer and client, or (`byName`) of the same name.
    static func personsLookAlike(of account: Account, among accounts: [Account], byName: Bool) -> Account? {
        accounts.first { person in
            switch person.owner {
            case .user, .system:
                (byName && person.name == account.name)
                    || (person.issuer == account.issuer && person.clientID == account.clientID)
            case .app: false
            }
        }
    }

    /// The refusal of an app's look-alike of `person`: the same words whichever part matched, so an app learns no
    /// more than that the declaration is taken.
    static func lookAlike(_ name: String) -> RouterError {
        RouterError(
            .accessDenied,
            "\(name) would pass for one of the person's accounts (its name, or its provider and client); an app asks for the person's account by name (GetToken), and the person is asked"
        )
    }

    /// Whether a sandboxed app may have the person's account it named: not a question (not the person's, or the
    /// app's own), allowed (once, or always), or the person is being asked (the call waits on it).
    private enum Consent {
        case notAsked
        case allowed(Account)
        case asking(Transition)
        /// What was asked for is not the account's to give: refused before anyone is asked.
        case refused(RouterError)
    }

    /// The protected resource a `GetToken` or `AddAccount` names by its URL (`for`), which `ResourceLookup` reads
    /// first.
    var resourceNamed: String? {
        switch self {
        case .getToken(_, let request): request.forResource
        case .add(_, let request): request.forResource
        case .list, .begin, .logout, .reject, .remove, .revokeGrant, .forward: nil
        }
    }

    /// The answer a refused caller gets: no account exists for it (an empty list, for `ListAccounts`).
    var refusal: Transition.Reply {
        switch self {
        case .getToken(let name, _), .logout(let name), .reject(let name, _), .add(let name, _), .remove(let name),
            .revokeGrant(_, let name):
            return .refused(AccountKeeper.unknownAccount(name))
        case .list: return .accounts([])
        case .forward:
            return .refused(
                RouterError(.accessDenied, "only the person's own programs, outside any sandbox, forward the agent"))
        case .begin(let b): return .refused(AccountKeeper.unknownAccount(b.request.account ?? ""))
        }
    }
}
