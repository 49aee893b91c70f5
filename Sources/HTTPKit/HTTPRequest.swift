/// What to send. The client adds what its policy owns (User-Agent, TLS
/// settings, no cookies, no redirects) and refuses headers that would
/// override it (see `HTTPClient.reservedHeaders`).
public struct HTTPRequest: Sendable, Equatable {
    /// The methods OpenID Connect needs (discovery and JWKS are GETs, the token endpoint a POST, a client's
    /// registration is deleted with a DELETE, RFC 7592 §2.3), and those `linkctl fetch` sends to a resource.
    public enum Method: String, Sendable, CaseIterable {
        case get = "GET"
        case post = "POST"
        case put = "PUT"
        case patch = "PATCH"
        case delete = "DELETE"
    }

    public var method: Method
    /// https, or http to 127.0.0.1, [::1] or localhost; anything else completes with `.refusedURL`.
    public var url: String
    public var headers: HTTPHeaders
    /// Sent as is with a POST; must be empty with a GET.
    public var body: [UInt8]
    /// The response body (and, separately, 64 KiB of headers) may not exceed this: the
    /// transfer stops as soon as it does and completes with `.tooLarge`.
    public var maxResponseBytes: Int
    /// The whole exchange, from resolving the name to the last body byte.
    public var timeoutMilliseconds: Int
    /// Resolving the name, connecting and the TLS handshake.
    public var connectTimeoutMilliseconds: Int

    /// Discovery documents and JWKS are a few KiB; 1 MiB leaves room and bounds memory.
    public static let defaultMaxResponseBytes = 1 << 20
    public static let defaultTimeoutMilliseconds = 15_000
    public static let defaultConnectTimeoutMilliseconds = 5_000

    public init(
        method: Method, url: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
        maxResponseBytes: Int = HTTPRequest.defaultMaxResponseBytes,
        timeoutMilliseconds: Int = HTTPRequest.defaultTimeoutMilliseconds,
        connectTimeoutMilliseconds: Int = HTTPRequest.defaultConnectTimeoutMilliseconds
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.maxResponseBytes = maxResponseBytes
        self.timeoutMilliseconds = timeoutMilliseconds
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
    }

    /// A GET with an `Accept` header (discovery and JWKS want `application/json`).
    public static func get(_ url: String, accept: String? = "application/json") -> HTTPRequest {
        var headers = HTTPHeaders()
        if let accept { headers.add("Accept", accept) }
        return HTTPRequest(method: .get, url: url, headers: headers)
    }

    /// A POST of a JSON document (a client's registration, RFC 7591 §3.1), already encoded.
    public static func postJSON(_ url: String, _ json: String, bearer: String? = nil) -> HTTPRequest {
        var headers: HTTPHeaders = ["Content-Type": "application/json", "Accept": "application/json"]
        if let bearer { headers.add("Authorization", "Bearer " + bearer) }
        return HTTPRequest(method: .post, url: url, headers: headers, body: Array(json.utf8))
    }

    /// A POST of `application/x-www-form-urlencoded` pairs, in order (the token endpoint, RFC 6749 §4.1.3).
    public static func postForm(_ url: String, _ pairs: [(String, String)], accept: String? = "application/json")
        -> HTTPRequest
    {
        var headers: HTTPHeaders = ["Content-Type": FormURLEncoding.contentType]
        if let accept { headers.add("Accept", accept) }
        return HTTPRequest(method: .post, url: url, headers: headers, body: FormURLEncoding.encode(pairs))
    }
}
