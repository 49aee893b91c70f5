/// What an oidc-agent client hears for a request the core answered, in the
/// shapes of oidc-agent's `ipc_values.h`: `{"status":"success","access_token":…,
/// "issuer":…,"expires_at":…}` (the ID token under `id_token`), the names of
/// `loaded_accounts` under `info`, or an `AgentRefusal`.
public enum AgentAnswer {
    public static func json(_ reply: Transition.Reply, to request: AgentRequest) -> JSONValue {
        switch reply {
        case .token(let a):
            let key = a.kind == .id ? "id_token" : "access_token"
            let token = a.kind == .id ? a.tokens.idToken ?? "" : a.tokens.accessToken
            let expires = (a.kind == .id ? a.tokens.idTokenExpiresAt : nil) ?? a.tokens.expiresAt ?? 0
            return .object([
                ("status", .string("success")), (key, .string(token)), ("issuer", .string(issuerText(a.issuer))),
                ("expires_at", .integer(expires)),
            ])
        case .accounts(let list):
            guard case .accountInfo = request else {
                return .object([
                    ("status", .string("success")),
                    ("info", .array(list.map { .string($0.account.name) }.sorted(by: name))),
                ])
            }
            return .object([("status", .string("success")), ("info", accountInfo(list))])
        case .refused(let e):
            // By issuer, oidc-agent says an account there is "not loaded"; "No account configured" is for a name.
            if e.code == .unknownAccount, case .token(let account, _) = request, account.isEmpty {
                return AgentRefusal.failure("account not loaded", info: e.message).json
            }
            return AgentRefusal(e).json
        case .none, .routed, .begun, .deviceBegun, .waited, .loggedIn, .tokens, .proof, .signedOut, .held, .forwarding:
            // No account call answers with these; said plainly rather than crashing on a kind it never gets.
            return AgentRefusal.failure("internal error", info: "linkrouterd answered with no token").json
        }
    }

    /// oidc-agent 5's `account_info`: by issuer, whether its client is public (linkrouter's always are), and each
    /// account's name with whether it is signed in ("loaded").
    static func accountInfo(_ list: [AccountSummary]) -> JSONValue {
        let issuers = Set(list.map { issuerText($0.account.issuer) }).sorted()
        return .object(
            issuers.map { issuer in
                let here = list.filter { issuerText($0.account.issuer) == issuer }.sorted {
                    $0.account.name < $1.account.name
                }
                let accounts = JSONValue.object(here.map { ($0.account.name, .bool($0.tokens?.tokens != nil)) })
                return (issuer, .object([("pubclient", .bool(true)), ("accounts", accounts)]))
            })
    }

    /// oidc-agent writes every issuer with a trailing `/` (its clients compare them so).
    static func issuerText(_ issuer: String) -> String { issuer.hasSuffix("/") ? issuer : issuer + "/" }

    private static func name(_ a: JSONValue, _ b: JSONValue) -> Bool { (a.stringValue ?? "") < (b.stringValue ?? "") }
}
