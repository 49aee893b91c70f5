/// A request of oidc-agent's client protocol (`ipc_values.h`, read as
/// oidc-agent 4.2.6's `oidcd.c` reads it), as linkrouter serves it: a token by
/// account or by issuer, with `min_valid_period`, `scope`, `audience` and the
/// client's `application_hint`; the ID token; the accounts that can be asked
/// for. oidc-agent's own management requests (oidc-gen's, oidc-add's) are
/// named so their refusal (`AgentRefusal.unserved`) can say what to run instead.
public enum AgentRequest: Equatable, Sendable {
    /// `access_token` or `id_token`: `GetToken` with these options, by `account` name (empty when by issuer).
    case token(account: String, TokenRequest)
    /// `loaded_accounts`: the names `oidc-token NAME` may ask for.
    case loadedAccounts
    /// `account_info` (oidc-agent 5): those accounts by issuer, each signed in or not.
    case accountInfo
    /// linkrouter's own: `GetToken(account, options)` with its options as a JSON object, answered with its `a{sv}` as
    /// one (`reply`), or its D-Bus error's name and message: linkctl's front asks so, one connection and one round
    /// trip where the bus takes two of each and a credentials query.
    case getToken(account: String, options: JSONValue)

    /// The request types of oidc-agent 4.2.6 and 5.x that manage the agent itself: what linkrouter does with
    /// `linkctl` instead.
    static let managed: [(types: [String], instead: String)] = [
        (
            ["gen", "add", "register", "code_exchange", "state_lookup", "device", "reauthenticate"],
            "accounts are declared with linkctl account add and signed in with linkctl login"
        ),
        (
            ["remove", "remove_all", "delete", "delete_client"],
            "accounts are signed out with linkctl logout and removed with linkctl account remove"
        ),
        (["lock", "unlock"], "tokens are kept in the desktop's keyring, which is locked and unlocked there"),
        (
            [
                "check", "status", "status_json", "scopes", "term_http_server", "file_write", "file_read",
                "file_remove",
                "mytoken", "mytoken_supported_providers",
            ],
            "linkctl status and linkctl accounts show what the daemon holds"
        ),
    ]

    /// The request in `value` (parsed JSON), or oidc-agent's failure text for it.
    public static func parse(_ value: JSONValue) throws(AgentRefusal) -> AgentRequest {
        guard case .object = value else { throw .badRequest("the request is not a JSON object") }
        guard let type = value["request"]?.stringValue else {
            throw value["request"] == nil ? .badRequest("No request type.") : .badRequest("request is not a string")
        }
        switch type {
        case "access_token", "id_token":
            return try token(value, idToken: type == "id_token")
        case "loaded_accounts":
            return .loadedAccounts
        case "account_info":
            return .accountInfo
        case AgentSocket.tokenRequest:
            guard let account = value["account"]?.stringValue else { throw .badRequest("account is not a string") }
            let options = value["options"] ?? .object([])
            guard case .object = options else { throw .badRequest("options is not a JSON object") }
            return .getToken(account: account, options: options)
        default:
            if let m = managed.first(where: { $0.types.contains(type) }) {
                throw .unserved(type, instead: m.instead)
            }
            throw .badRequest("Unknown request type.")
        }
    }

    private static func token(_ value: JSONValue, idToken: Bool) throws(AgentRefusal) -> AgentRequest {
        var request = TokenRequest()
        if idToken { request.idToken = true }
        let account = try string(value, "account")
        let issuer = try string(value, "issuer")
        // oidc-agent: the account first; neither is "Not yet implemented", its words for it.
        guard account != nil || issuer != nil else {
            throw .failure("Not yet implemented", info: "name an account or an issuer")
        }
        if account == nil { request.issuer = issuer }
        request.scope = try string(value, "scope")
        request.audience = try string(value, "audience")
        switch value["min_valid_period"] {
        case nil, .null?: break
        case let v?:
            // A number, or its text (oidc-agent reads it either way); -1 is oidc-token -f, "a new token".
            let seconds = v.int64Value ?? v.stringValue.flatMap { Int64($0) }
            guard let seconds, seconds >= -1 else {
                throw .badRequest("min_valid_period is a number of seconds")
            }
            // -1 (oidc-token -f): any token with life left; linkrouter refreshes ahead of need, once for every caller,
            // and never spends a refresh token because one caller asked.
            if seconds >= 0 { request.minValid = UInt32(clamping: seconds) }
        }
        // What the client calls itself, shown to the person beside the verified app, never instead of it: kept only
        // when it is short visible text.
        if let hint = try string(value, "application_hint"), hint.utf8.count <= 64, OAuthText.isVisibleText(hint) {
            request.applicationHint = hint
        }
        return .token(account: account ?? "", request)
    }

    /// A string member, absent or `null` as nil, and empty as nil (oidc-agent's `strValid`).
    private static func string(_ value: JSONValue, _ key: String) throws(AgentRefusal) -> String? {
        switch value[key] {
        case nil, .null?: return nil
        case .string(let s)?: return s.isEmpty ? nil : s
        case _?: throw .badRequest("\(key) is not a string")
        }
    }
}
