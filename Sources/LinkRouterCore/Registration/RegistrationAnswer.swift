/// A registration endpoint's answer (RFC 7591 §3.2), checked before any of it
/// is kept: a client linkrouter can use, one the provider made but linkrouter
/// cannot use (deleted again where the answer says how), or a refusal.
public enum RegistrationAnswer: Sendable, Equatable {
    case registered(RegisteredClient)
    /// The provider registered a client that is not the one asked for (a
    /// confidential one, another redirect): refused, and deleted with these
    /// credentials when the provider gave them.
    case unusable(RouterError, RegistrationCredentials?)
    case refused(RouterError)

    /// The answer to `request`, HTTP `status` with `body` (nil: not JSON). The management URL of a client
    /// registered over https must be https too (as an https issuer's endpoints are, `ProviderMetadata`).
    public static func read(status: Int, body: JSONValue?, request: ClientRegistrationRequest) -> RegistrationAnswer {
        let httpsIssuer = (try? URIReference.split(request.endpoint))?.normalizedScheme == "https"
        let at = "the registration endpoint \(request.endpoint)"
        guard status == 201 || status == 200 else {
            return .refused(refusal(status: status, body: body, at: at, sentToken: request.initialAccessToken != nil))
        }
        guard let body, case .object = body else {
            return .refused(RouterError(.registrationFailed, "\(at) answered HTTP \(status) without a JSON object"))
        }
        guard let clientID = body["client_id"]?.stringValue, !clientID.isEmpty, OAuthText.isVisibleText(clientID),
            clientID.utf8.count <= 1024
        else {
            return .refused(
                RouterError(
                    .registrationFailed, "\(at) answered without a client_id (RFC 7591 §3.2.1); nothing was kept"))
        }
        // RFC 7592 §3: both or neither. A management URL that breaks the endpoint rules is none: never sent a token.
        var management: RegistrationCredentials?
        if let uri = body["registration_client_uri"]?.stringValue,
            let token = body["registration_access_token"]?.stringValue, OAuthText.isVisibleText(token),
            token.utf8.count <= 4096, SessionPlan.isEndpoint(uri, maxLength: 2048),
            !httpsIssuer || (try? URIReference.split(uri))?.normalizedScheme == "https"
        {
            management = RegistrationCredentials(clientID: clientID, uri: uri, token: token)
        }
        func unusable(_ why: String) -> RegistrationAnswer {
            let undo = management == nil ? "; delete client \(clientID) there by hand" : ""
            return .unusable(
                RouterError(
                    .registrationFailed, "\(at) registered \(why), not a public client with its redirect\(undo)"),
                management)
        }
        if let secret = body["client_secret"]?.stringValue, !secret.isEmpty {
            return unusable("a confidential client (it sent a client_secret)")
        }
        if let method = body["token_endpoint_auth_method"]?.stringValue, method != "none" {
            return unusable("a client that authenticates with \(PercentEncoding.preview(Substring(method)))")
        }
        if let uris = body["redirect_uris"]?.arrayValue, !uris.contains(.string(request.redirectURI)) {
            return unusable("a client with other redirect URIs than \(request.redirectURI)")
        }
        let name = body["client_name"]?.stringValue.flatMap {
            OAuthText.isVisibleText($0) && $0.utf8.count <= 256 ? $0 : nil
        }
        return .registered(
            RegisteredClient(clientID: clientID, clientName: name ?? request.clientName, management: management))
    }

    /// Why the endpoint refused (RFC 7591 §3.2.2: an error code and its description in JSON), said so a person can
    /// act: an initial access token asked for or refused, the metadata refused.
    static func refusal(status: Int, body: JSONValue?, at: String, sentToken: Bool) -> RouterError {
        if status == 401 || status == 403 {
            return RouterError(
                .registrationFailed,
                sentToken
                    ? "\(at) refused the initial access token (HTTP \(status)); ask the provider's administrator for a new one"
                    : "\(at) registers only with an initial access token (HTTP \(status)): get one from the provider's administrator and give it on stdin (linkctl account add NAME --issuer URL --registration-token -), or register a client by hand and give --client-id"
            )
        }
        let code = body?["error"]?.stringValue.flatMap { OAuthText.isErrorText($0) ? $0 : nil }
        let description = body?["error_description"]?.stringValue.map { PercentEncoding.preview(Substring($0)) }
        let said = code.map { ": " + $0 + (description.map { " (\($0))" } ?? "") } ?? ", no reason given"
        return RouterError(.registrationFailed, "\(at) refused the registration with HTTP \(status)\(said)")
    }
}

/// A client the provider registered for an account (RFC 7591 §3.2.1).
public struct RegisteredClient: Sendable, Equatable {
    public let clientID: String
    /// The name the provider shows (its answer's `client_name`, else the one sent).
    public let clientName: String
    /// How to delete it again (RFC 7592); nil where the provider offers no management.
    public let management: RegistrationCredentials?

    public init(clientID: String, clientName: String, management: RegistrationCredentials?) {
        self.clientID = clientID
        self.clientName = clientName
        self.management = management
    }
}
