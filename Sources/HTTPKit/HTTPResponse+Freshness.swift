/// How long a response may be reused without asking again (RFC 9111 §4.2):
/// discovery documents and JWKS are cached for the lifetime their server gives.
extension HTTPResponse {
    /// Every `Cache-Control` field line, parsed together.
    public var cacheControl: CacheControl { CacheControl(parsing: headers.values("Cache-Control")) }

    /// `Age` (§5.1): seconds the response already spent in caches on the way; 0 when absent or invalid.
    public var age: Int64 { headers["Age"].flatMap { CacheControl.deltaSeconds($0) } ?? 0 }

    /// Seconds from `receivedAt` that this response stays fresh, or nil when
    /// the server gave no explicit lifetime (the caller then picks a default).
    ///
    /// 0 for `no-store` and `no-cache`. Otherwise the freshness lifetime (§4.2.1:
    /// `max-age`, else `Expires` minus `Date`, an invalid `Expires` meaning already
    /// expired) less the age it arrived with (§4.2.3: the larger of `Age` and
    /// `receivedAt - Date`), never below 0. `s-maxage` is for shared caches; this one is private.
    public var freshnessSeconds: Int64? {
        let control = cacheControl
        if control.noStore || control.noCache { return 0 }
        let date = headers["Date"].flatMap { HTTPDate.parse($0, now: receivedAt) }
        let lifetime: Int64
        if let maxAge = control.maxAge {
            lifetime = maxAge
        } else if let expires = headers["Expires"] {
            guard let when = HTTPDate.parse(expires, now: receivedAt) else { return 0 }
            lifetime = when - (date ?? receivedAt)
        } else {
            return nil
        }
        let apparentAge = date.map { max(0, receivedAt - $0) } ?? 0
        return max(0, lifetime - max(apparentAge, age))
    }
}
