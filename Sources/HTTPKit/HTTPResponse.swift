/// What the server answered: any status, 3xx, 4xx and 5xx included (the
/// client follows no redirects; the caller decides what a status means).
public struct HTTPResponse: Sendable, Equatable {
    public let status: Int
    /// The final header block; those of any 1xx before it are dropped.
    public let headers: HTTPHeaders
    public let body: [UInt8]
    /// Wall-clock Unix seconds when the response arrived: the `response_time` of
    /// RFC 9111 §4.2.3, from which its freshness is reckoned.
    public let receivedAt: Int64

    public init(status: Int, headers: HTTPHeaders, body: [UInt8], receivedAt: Int64) {
        self.status = status
        self.headers = headers
        self.body = body
        self.receivedAt = receivedAt
    }

    public var contentType: String? { headers["Content-Type"] }

    /// The media type alone, lower case: `application/json` from `application/json; charset=utf-8`.
    public var mediaType: String? {
        guard let contentType else { return nil }
        let type = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return type.trimmingSpaces().lowercased()
    }

    /// The `Location` of a redirect, as sent (relative references are not resolved).
    public var location: String? { headers["Location"] }
}
