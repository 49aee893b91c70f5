/// A socket of its own for one `ssh -R` forward of the agent
/// (`linkctl agent forward`, D-Bus `ForwardAgent`): programs on the far host
/// reach linkrouterd through it, and only as far as the person said when
/// making it: the accounts named, at most the scope and audience given.
/// Each request is confirmed on this desktop (the far host is a caller app,
/// `CallerApp.remote`, so the consent prompt asks, and "Always allow" is for
/// that host), unless it was made `allow_unconfirmed`. It lasts while the bus
/// connection that made it does (the `linkctl` running `ssh`). Nothing on the
/// main socket is reachable through it.
public struct AgentForward: Sendable, Equatable {
    /// Where it listens (`$XDG_RUNTIME_DIR/linkrouter/forward-ID`), given by the daemon with a fresh random ID.
    public var path = ""
    /// The bus name of the caller that made it; it is closed when that name leaves the bus.
    public var owner = ""
    /// The ssh destination as the person named it (shown in each prompt: "a program on build01 (via ssh)").
    public var host = ""
    public var accounts: [String] = []
    public var scope: String?
    public var audience: String?
    /// Requests are not confirmed: the far host's programs are served as this user's own, for the named accounts.
    public var unconfirmed = false

    public init() {}

    public static let options = OptionTable<AgentForward>(
        method: "ForwardAgent",
        [
            OptionRow(
                "host", .string({ $0.host = $1 }, get: { $0.host }), limit: .bytes(255),
                flag: .value("host", placeholder: "HOST"),
                help: "the host's name in prompts (default: what ssh -G says of the destination)",
                doc: "the far host's name as the person knows it, shown in each prompt (required)"),
            OptionRow(
                "accounts", .strings({ $0.accounts = $1 }, get: { $0.accounts }),
                flag: .repeated("account", placeholder: "NAME"),
                help: "an account the far host may ask for (repeat for more; at least one)",
                doc: "the accounts the far host may ask for, by name: your own (at least one, at most 16)"),
            OptionRow(
                "scope", .string({ $0.scope = $1 }, get: { $0.scope }), limit: .option,
                flag: .value("scope", placeholder: "SCOPE"),
                help: "at most this scope: a request for more is refused, one for none gets this",
                doc:
                    "at most this scope (space-separated): a request for more is refused, one naming none is given this"
            ),
            OptionRow(
                "audience", .string({ $0.audience = $1 }, get: { $0.audience }), limit: .option,
                flag: .value("audience", placeholder: "AUDIENCE"),
                help: "only tokens for this audience",
                doc: "only tokens for this audience: a request for another is refused, one naming none is given this"),
            OptionRow(
                "allow_unconfirmed", .bool({ $0.unconfirmed = $1 }, get: { $0.unconfirmed }),
                flag: .setsTrue("allow-unconfirmed"),
                help: "serve the far host's requests without asking each time (for the named accounts only)",
                doc:
                    "`true`: requests are served without a prompt, as this user's own programs' are, for the named accounts only (headless machines); default `false`: each is confirmed by a notification here, and refused when no notification server answers"
            ),
        ])

    /// The forward as asked, checked: a host, one to 16 accounts the caller has, a scope of scope-tokens.
    public func checked(mine: [Account]) throws(RouterError) -> AgentForward {
        guard !host.isEmpty, OAuthText.isVisibleText(host), !host.contains(" ") else {
            throw .invalid("a forward names its host (a name without spaces, as ssh was given it)")
        }
        guard (1...16).contains(accounts.count) else {
            throw .invalid("a forward names the accounts the far host may ask for: one to 16 (--account NAME)")
        }
        for name in accounts where !mine.contains(where: { $0.name == name }) {
            throw AccountKeeper.unknownAccount(name)
        }
        if let scope, !OAuthText.isScope(scope) { throw .invalid("scope is space-separated scope-tokens") }
        var out = self
        out.accounts = Array(Set(accounts)).sorted()
        return out
    }

    /// `request`, as this forward lets it through, or why not (in oidc-agent's words, with linkrouter's): an account
    /// it names (one asked by issuer is the forward's account there), at most its scope (its scope when none is
    /// asked) and its audience.
    public func admit(_ request: AgentRequest, declared: [Account]) throws(AgentRefusal) -> AgentRequest {
        var name: String
        var options: TokenRequest
        switch request {
        case .loadedAccounts, .accountInfo: return request
        case .getToken:
            // linkctl's own request names any option `GetToken` takes: not through a forward, whose limits are the
            // oidc-agent request's.
            throw .failure("operation forbidden", info: "linkrouter's own requests are not served through a forward")
        case .token(let n, let o):
            name = n
            options = o
        }
        let mine = declared.filter { accounts.contains($0.name) && $0.owner.serves(.host) }
        if let issuer = options.issuer {
            do {
                name = try IssuerChoice.pick(
                    issuer, among: mine, name: \.name, issuer: \.issuer, isDefault: \.isDefault
                ).name
            } catch {
                throw .failure(
                    "account not loaded",
                    info: "this forward serves \(accounts.joined(separator: ", ")) only; none of them at \(issuer)")
            }
            options.issuer = nil
        }
        guard accounts.contains(name) else {
            throw .failure(
                "No account configured with that short name",
                info: "this forward serves \(accounts.joined(separator: ", ")) only")
        }
        if let scope {
            let allowed = Set(scope.split(separator: " "))
            if let asked = options.scope {
                guard Set(asked.split(separator: " ")).isSubset(of: allowed) else {
                    throw .failure("operation forbidden", info: "this forward serves at most the scope \(scope)")
                }
            } else {
                options.scope = scope
            }
        }
        if let audience {
            guard options.audience == nil || options.audience == audience else {
                throw .failure(
                    "operation forbidden", info: "this forward serves tokens for the audience \(audience) only")
            }
            options.audience = audience
        }
        return .token(account: name, options)
    }

    /// `loaded_accounts` and `account_info` through the forward: its accounts only.
    public func shown(_ answer: JSONValue) -> JSONValue {
        switch answer["info"] {
        case .array(let names)?:
            let kept = names.filter { accounts.contains($0.stringValue ?? "") }
            return .object([("status", .string("success")), ("info", .array(kept))])
        case .object(let issuers)?:
            let kept = issuers.compactMap { issuer, entry -> (String, JSONValue)? in
                guard case .object(let names)? = entry["accounts"] else { return nil }
                let mine = names.filter { accounts.contains($0.0) }
                return mine.isEmpty
                    ? nil : (issuer, .object([("pubclient", .bool(true)), ("accounts", .object(mine))]))
            }
            return .object([("status", .string("success")), ("info", .object(kept))])
        default:
            return answer
        }
    }
}
