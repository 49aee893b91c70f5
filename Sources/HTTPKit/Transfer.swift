internal import CCurl
import SystemKit

/// One request in flight: its easy handle, what libcurl reads from us while it
/// runs (the URL, the header list, the error buffer), and what it hands back.
/// Owned by `HTTPClient.transfers` while the handle is in the multi handle, so
/// the pointers given to libcurl stay valid.
final class Transfer {
    /// Headers are capped apart from the body: libcurl bounds one line, not their sum.
    static let maxHeaderBytes = 64 * 1024

    enum Overflow { case body, headers }

    let curl: LibCurl
    let easy: UnsafeMutableRawPointer
    let url: CurlURL
    let request: HTTPRequest
    let caFile: String?
    let completion: (Result<HTTPResponse, HTTPError>) -> Void
    /// Filled by libcurl with its words for a failure (`CURLOPT_ERRORBUFFER`).
    let errorBuffer: UnsafeMutablePointer<CChar>
    var headerList: UnsafeMutablePointer<curl_slist>?

    private(set) var fields: [(String, String)] = []
    private var headerBytes = 0
    private(set) var body: [UInt8] = []
    private(set) var overflow: Overflow?

    init(
        curl: LibCurl, easy: UnsafeMutableRawPointer, url: CurlURL, request: HTTPRequest, caFile: String?,
        completion: @escaping (Result<HTTPResponse, HTTPError>) -> Void
    ) {
        self.curl = curl
        self.easy = easy
        self.url = url
        self.request = request
        self.caFile = caFile
        self.completion = completion
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit {
        lr_curl_easy_cleanup(curl.fn, easy)
        lr_curl_slist_free_all(curl.fn, headerList)
        errorBuffer.deallocate()
    }

    /// From the write callback: false stops the transfer (libcurl then fails it with CURLE_WRITE_ERROR).
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard body.count + bytes.count <= request.maxResponseBytes else {
            overflow = .body
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// From the header callback, one line at a time, CRLF included.
    func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
        headerBytes += bytes.count
        guard headerBytes <= Self.maxHeaderBytes else {
            overflow = .headers
            return false
        }
        var line = Substring(String(decoding: bytes, as: UTF8.self))
        while let last = line.last, last == "\r" || last == "\n" || last == "\r\n" { line.removeLast() }
        if line.hasPrefix("HTTP/") {
            // A status line starts a new header block: any before it was a 1xx.
            fields = []
        } else if let first = line.first, first == " " || first == "\t" {
            // Obsolete line folding (RFC 9112 §5.2): a continuation of the previous value.
            if let (name, value) = fields.popLast() { fields.append((name, value + " " + line.trimmingSpaces())) }
        } else if let colon = line.firstIndex(of: ":") {
            fields.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingSpaces()))
        }
        return true
    }

    /// The response, or the error, once libcurl reports the transfer done.
    func outcome(_ code: CURLcode) -> Result<HTTPResponse, HTTPError> {
        if let overflow {
            let what =
                overflow == .body
                ? "body exceeds the \(request.maxResponseBytes)-byte limit"
                : "headers exceed \(Self.maxHeaderBytes) bytes"
            // An answer came, so the request went out.
            var error = HTTPError(
                .tooLarge, host: url.authority, "the response from \(url.authority) was refused: its \(what)")
            error.sent = true
            return .failure(error)
        }
        guard code == CURLE_OK else {
            let detail = String(cString: errorBuffer)
            let cause = detail.isEmpty ? String(cString: lr_curl_easy_strerror(curl.fn, code)) : detail
            var error = HTTPError.transferFailed(
                code, host: url.authority, name: url.host, cause: cause, request: request, caFile: caFile)
            var sentBytes = 0
            _ = lr_curl_easy_getinfo_long(curl.fn, easy, CURLINFO_REQUEST_SIZE, &sentBytes)
            error.sent = sentBytes > 0
            return .failure(error)
        }
        var status = 0
        _ = lr_curl_easy_getinfo_long(curl.fn, easy, CURLINFO_RESPONSE_CODE, &status)
        return .success(
            HTTPResponse(status: status, headers: HTTPHeaders(fields), body: body, receivedAt: Clock.unixSeconds()))
    }
}
