/// Why a request produced no response. An HTTP status, 4xx and 5xx included,
/// is a response, not an error. The message names the host (never the path or
/// query, which may carry secrets) and says what to check.
public struct HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// The URL breaks the client's policy: not https (http only to a loopback host),
        /// credentials in the URL, or not a URL libcurl can parse. Nothing was sent.
        case refusedURL
        /// A header the client owns (User-Agent, Cookie, Host, …), a control character
        /// in a header, or a body on a GET. Nothing was sent.
        case invalidRequest
        /// The host name (or the proxy's) did not resolve.
        case resolve
        /// No connection could be made (refused, unreachable).
        case connect
        /// The TLS handshake failed, most often because the certificate is not trusted for the host.
        case tls
        /// The whole exchange, or the connect phase, took longer than the request allows.
        case timeout
        /// The response body or headers exceeded the request's limit; the transfer was stopped.
        case tooLarge
        /// The server's answer was not valid HTTP, or the connection broke mid-answer.
        case `protocol`
        /// libcurl failed in itself (out of memory, a build lacking a feature).
        case `internal`
        /// libcurl (Debian: libcurl4) cannot be loaded, is too old or would not
        /// initialise: no request can be made. Thrown by `HTTPClient.init`.
        case unavailable
    }

    public let code: Code
    /// Host and port as in the URL (empty when the URL did not parse).
    public let host: String
    public let message: String
    /// libcurl's own words, when it gave any.
    public let cause: String?
    /// Whether the request had gone out (libcurl counted its bytes sent) before the exchange failed: then the
    /// server may have acted on it though no answer came (a provider that rotates refresh tokens has spent the one
    /// sent). False for every failure before sending (the URL, the name, the connection, TLS).
    public var sent = false

    public init(_ code: Code, host: String, _ message: String, cause: String? = nil) {
        self.code = code
        self.host = host
        self.message = message
        self.cause = cause.flatMap { $0.isEmpty ? nil : $0 }
    }

    public var description: String {
        guard let cause else { return message }
        return "\(message) (\(cause))"
    }
}
