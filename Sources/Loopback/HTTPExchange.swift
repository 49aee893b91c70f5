/// One request as the listener saw it, after its own checks (method, Host,
/// path) passed: the raw request target, exactly as it arrived.
public struct HTTPRequest: Sendable, Equatable {
    /// `/callback?code=…&state=…`, byte for byte from the request line.
    public let target: String
    public let method: String
    public let host: String?
}

/// What to answer.
public struct HTTPResponse: Sendable, Equatable {
    public let status: Int
    public let body: String
    /// The request ended the session's need for the listener (completed or failed).
    public let final: Bool
    /// The page's own Content-Security-Policy, instead of the listener's (no script, no form): a sign-out page's.
    public var contentSecurityPolicy: String?

    public init(status: Int, body: String, final: Bool = false) {
        self.status = status
        self.body = body
        self.final = final
    }
}
