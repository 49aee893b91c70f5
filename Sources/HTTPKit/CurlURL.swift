internal import CCurl

/// libcurl's own parse of a URL (a `CURLU`). The policy judges these parts and
/// the same handle goes to the transfer (`CURLOPT_CURLU`), so what is checked
/// is exactly what libcurl connects to: no second parser to disagree with it.
final class CurlURL {
    let curl: LibCurl
    let handle: OpaquePointer
    /// Lower case, as libcurl normalises it.
    let scheme: String
    /// As libcurl will resolve it: an IPv6 literal keeps its brackets (`[::1]`).
    let host: String
    /// Only when the URL names one.
    let port: String?
    let hasCredentials: Bool

    /// nil when libcurl cannot parse `text` as an absolute URL.
    init?(_ text: String, curl: LibCurl) {
        guard !text.utf8.contains(0), let handle = lr_curl_url(curl.fn) else { return nil }
        self.curl = curl
        self.handle = handle
        guard lr_curl_url_set(curl.fn, handle, CURLUPART_URL, text, 0) == CURLUE_OK,
            let scheme = Self.part(curl, handle, CURLUPART_SCHEME), let host = Self.part(curl, handle, CURLUPART_HOST)
        else {
            lr_curl_url_cleanup(curl.fn, handle)
            return nil
        }
        self.scheme = scheme.lowercased()
        self.host = host
        port = Self.part(curl, handle, CURLUPART_PORT)
        hasCredentials =
            Self.part(curl, handle, CURLUPART_USER) != nil || Self.part(curl, handle, CURLUPART_PASSWORD) != nil
    }

    deinit { lr_curl_url_cleanup(curl.fn, handle) }

    /// `host` or `host:port`, for messages.
    var authority: String { port.map { host + ":" + $0 } ?? host }

    private static func part(_ curl: LibCurl, _ handle: OpaquePointer, _ which: CURLUPart) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard lr_curl_url_get(curl.fn, handle, which, &value, 0) == CURLUE_OK, let value else { return nil }
        defer { lr_curl_free(curl.fn, value) }
        return String(cString: value)
    }
}
