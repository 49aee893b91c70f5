/// What RFC 7592 manages a registered client with: its configuration URL
/// (`registration_client_uri`) and the Bearer token for it
/// (`registration_access_token`). Kept in the keyring beside the account's
/// tokens, as an item of its own (the accounts component's `registrationKey`), so a sign-out
/// does not lose it and `RemoveAccount` can delete the client at the provider.
public struct RegistrationCredentials: Sendable, Equatable {
    public let clientID: String
    public let uri: String
    public let token: String

    public init(clientID: String, uri: String, token: String) {
        self.clientID = clientID
        self.uri = uri
        self.token = token
    }

    /// The keyring item's form.
    public var document: JSONValue {
        .object([
            ("client_id", .string(clientID)), ("registration_client_uri", .string(uri)),
            ("registration_access_token", .string(token)),
        ])
    }

    /// Read back from the keyring item; nil when it is not one this linkrouter wrote.
    public init?(document: JSONValue) {
        guard let id = document["client_id"]?.stringValue, let uri = document["registration_client_uri"]?.stringValue,
            let token = document["registration_access_token"]?.stringValue
        else { return nil }
        self.init(clientID: id, uri: uri, token: token)
    }
}
