/// A failure of oidc-agent's protocol, answered `{"status":"failure","error":…}`
/// with oidc-agent's own words where it has them (clients act on them:
/// liboidcagent asks its remote agent when an error starts with "No account
/// configured with that short name"), and linkrouter's in `info`, which
/// `oidc-token` prints under the error.
public enum AgentRefusal: Error, Equatable, Sendable {
    /// oidc-agent's `Bad Request: …`.
    case badRequest(String)
    /// A request of oidc-agent's that linkrouter leaves to linkctl.
    case unserved(String, instead: String)
    /// Any other failure: oidc-agent's error words and linkrouter's.
    case failure(String, info: String?)
    /// A refusal of linkrouter's own request (`AgentSocket.tokenRequest`): the D-Bus error's name and message, as
    /// `GetToken` over the bus would have said them.
    case named(String, message: String)

    public var error: String {
        switch self {
        case .badRequest(let why): "Bad Request: " + why
        case .unserved(let type, _): "linkrouter does not serve oidc-agent's \(type) request"
        case .failure(let error, _): error
        case .named(_, let message): message
        }
    }

    public var info: String? {
        switch self {
        case .badRequest: nil
        case .unserved(_, let instead): instead
        case .failure(_, let info): info
        case .named: nil
        }
    }

    /// A refusal of the daemon's in oidc-agent's words: an account it does not have, one not signed in, and
    /// an app the person did not allow are the failures oidc-agent's clients know; the daemon's message goes along.
    public init(_ e: RouterError) {
        switch e.code {
        case .unknownAccount: self = .failure("No account configured with that short name", info: e.message)
        case .notSignedIn, .keyringLocked, .stepUpRequired: self = .failure("account not loaded", info: e.message)
        case .accessDenied: self = .failure("operation forbidden", info: e.message)
        default: self = .failure(e.message, info: nil)
        }
    }

    /// The answer's JSON.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("status", .string("failure")), ("error", .string(error))]
        if let info { members.append(("info", .string(info))) }
        if case .named(let name, _) = self { members.append((AgentSocket.errorName, .string(name))) }
        return .object(members)
    }
}
