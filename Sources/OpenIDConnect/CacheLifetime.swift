import HTTPKit

/// How long a fetched document is reused: the lifetime its server gives
/// (RFC 9111, `HTTPResponse.freshnessSeconds`), or an hour when it gives
/// none, and never more than a day, so a rotated key or a moved endpoint is
/// seen within a day whatever the headers say.
enum CacheLifetime {
    static let fallback: Int64 = 3600
    static let maximum: Int64 = 86_400

    /// Seconds to keep `response`; 0 means not at all (`no-store`, `no-cache`, `max-age=0`).
    static func seconds(_ response: HTTPResponse) -> Int64 {
        min(max(response.freshnessSeconds ?? fallback, 0), maximum)
    }
}
