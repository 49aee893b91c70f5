internal import CCurl

/// libcurl's own parse of a URL (a `CURLU`). The policy judges these parts and
/// the same handle goes to the transfer (`CURLOPT_CURLU`), so what is checked
/// is exactly what libcurl connects to: no second parser to disagree with it.
final class CurlURL {
    let handle: OpaquePointer
    /// Lower case, as libcurl normalises it.
    let scheme: String
    /// As libcurl will resolve it: an IPv6 literal keeps its brackets (`[::1]`).
    let host: String
    /// Only when the URL names one.
    let port: String?
    let hasCredentials: Bool

    /// nil when libcurl cannot parse `text` as an absolute URL.
    init?(_ text: String) {
        guard !text.utf8.contains(0), let handle = curl_url() else { return nil }
        self.handle = handle
        guard curl_url_set(handle, CURLUPART_URL, text, 0) == CURLUE_OK,
              let scheme = Self.part(handle, CURLUPART_SCHEME), let host = Self.part(handle, CURLUPART_HOST) else {
            curl_url_cleanup(handle)
            return nil
        }
        self.scheme = scheme.lowercased()
        self.host = host
        port = Self.part(handle, CURLUPART_PORT)
        hasCredentials = Self.part(handle, CURLUPART_USER) != nil || Self.part(handle, CURLUPART_PASSWORD) != nil
    }

    deinit { curl_url_cleanup(handle) }

    /// `host` or `host:port`, for messages.
    var authority: String { port.map { host + ":" + $0 } ?? host }

    private static func part(_ handle: OpaquePointer, _ which: CURLUPart) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, which, &value, 0) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        return String(cString: value)
    }
}
