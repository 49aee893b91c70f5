internal import CCurl

/// The easy-handle options: the client's policy, set on every transfer.
extension Transfer {
    /// A configured transfer for `request`, or why it may not start.
    static func make(
        request: HTTPRequest, curl: LibCurl, share: UnsafeMutableRawPointer, caFile: String?, userAgent: String,
        completion: @escaping (Result<HTTPResponse, HTTPError>) -> Void
    ) throws(HTTPError) -> Transfer {
        guard let url = CurlURL(request.url, curl: curl) else {
            throw HTTPError(
                .refusedURL, host: "", "refused a request: its URL is not an absolute http(s) URL libcurl can parse")
        }
        let allowance: RequestPolicy.Allowance
        switch RequestPolicy.allowance(scheme: url.scheme, host: url.host, hasCredentials: url.hasCredentials) {
        case .allow(let a): allowance = a
        case .refuse(let why): throw HTTPError(.refusedURL, host: url.authority, why)
        }
        func invalid(_ why: String) -> HTTPError {
            HTTPError(.invalidRequest, host: url.authority, "refused a request to \(url.authority): \(why)")
        }
        for field in request.headers {
            if let problem = RequestPolicy.headerProblem(name: field.name, value: field.value) {
                throw invalid(problem)
            }
        }
        if (request.method == .get || request.method == .delete) && !request.body.isEmpty {
            throw invalid("a \(request.method.rawValue) cannot carry a body")
        }
        guard request.timeoutMilliseconds > 0, request.connectTimeoutMilliseconds > 0, request.maxResponseBytes >= 0
        else {
            throw invalid("timeouts must be positive and the size limit not negative")
        }
        guard let easy = lr_curl_easy_init(curl.fn) else {
            throw HTTPError(.internal, host: url.authority, "libcurl could not create a transfer (out of memory)")
        }
        let transfer = Transfer(
            curl: curl, easy: easy, url: url, request: request, caFile: caFile, completion: completion)
        try transfer.configure(allowance: allowance, share: share, userAgent: userAgent)
        return transfer
    }

    private func configure(allowance: RequestPolicy.Allowance, share: UnsafeMutableRawPointer, userAgent: String)
        throws(HTTPError)
    {
        let context = Unmanaged.passUnretained(self).toOpaque()
        try set(CURLOPT_CURLU, pointer: UnsafeRawPointer(url.handle))
        try set(CURLOPT_SHARE, pointer: share)
        try set(CURLOPT_ERRORBUFFER, pointer: errorBuffer)
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_PROTOCOLS_STR, allowance.protocols)
        try set(CURLOPT_REDIR_PROTOCOLS_STR, allowance.protocols)
        // A 3xx goes back to the caller, who decides (a redirect to http or another host is never taken silently).
        try set(CURLOPT_FOLLOWLOCATION, 0)
        try set(CURLOPT_SSL_VERIFYPEER, 1)
        try set(CURLOPT_SSL_VERIFYHOST, 2)
        try set(CURLOPT_PROXY_SSL_VERIFYPEER, 1)
        try set(CURLOPT_PROXY_SSL_VERIFYHOST, 2)
        try set(CURLOPT_SSLVERSION, CURL_SSLVERSION_TLSv1_2)
        if let caFile {
            // Like OpenSSL's SSL_CERT_FILE: this file is the whole trust store. The
            // compiled-in CA directory (/etc/ssl/certs on Debian) is switched off too.
            try set(CURLOPT_CAINFO, caFile)
            try set(CURLOPT_CAPATH, nil)
            try set(CURLOPT_PROXY_CAINFO, caFile)
            try set(CURLOPT_PROXY_CAPATH, nil)
        }
        // Proxies: libcurl's own reading of https_proxy, all_proxy and no_proxy applies (see HTTPClient).
        if allowance.direct { try set(CURLOPT_NOPROXY, "*") }
        try set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        try set(CURLOPT_NETRC, Int(CURL_NETRC_IGNORED.rawValue))
        try set(CURLOPT_USERAGENT, userAgent)
        try set(CURLOPT_TIMEOUT_MS, request.timeoutMilliseconds)
        try set(CURLOPT_CONNECTTIMEOUT_MS, request.connectTimeoutMilliseconds)
        // Refuses early on a Content-Length over the limit; the write callback catches the rest (0 would mean no
        // limit).
        if request.maxResponseBytes > 0 { try set(CURLOPT_MAXFILESIZE_LARGE, offset: Int64(request.maxResponseBytes)) }
        try set(CURLOPT_WRITEFUNCTION, callback: bodyThunk)
        try set(CURLOPT_WRITEDATA, pointer: context)
        try set(CURLOPT_HEADERFUNCTION, callback: headerThunk)
        try set(CURLOPT_HEADERDATA, pointer: context)

        var lines = request.headers.map { $0.value.isEmpty ? $0.name + ";" : $0.name + ": " + $0.value }
        switch request.method {
        case .get:
            try set(CURLOPT_HTTPGET, 1)
        case .delete:
            // A GET's transfer with DELETE as its method: no body sent, the answer's body read.
            try set(CURLOPT_HTTPGET, 1)
            try check(CURLOPT_CUSTOMREQUEST, lr_curl_easy_setopt_string(curl.fn, easy, CURLOPT_CUSTOMREQUEST, "DELETE"))
        case .post, .put, .patch:
            if request.method != .post {
                // A POST's transfer with the method named: the body sent the same way.
                try check(
                    CURLOPT_CUSTOMREQUEST,
                    lr_curl_easy_setopt_string(curl.fn, easy, CURLOPT_CUSTOMREQUEST, request.method.rawValue))
            }
            // No `Expect: 100-continue` round trip for a form body.
            lines.append("Expect:")
            try set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(request.body.count))
            // libcurl copies the bytes now (COPYPOSTFIELDS), so the array need not outlive this call.
            let copied =
                request.body.isEmpty
                ? lr_curl_easy_setopt_string(curl.fn, easy, CURLOPT_COPYPOSTFIELDS, "")
                : request.body.withUnsafeBytes {
                    lr_curl_easy_setopt_pointer(curl.fn, easy, CURLOPT_COPYPOSTFIELDS, $0.baseAddress)
                }
            try check(CURLOPT_COPYPOSTFIELDS, copied)
        }
        for line in lines {
            guard let list = lr_curl_slist_append(curl.fn, headerList, line) else {
                throw setupFailed("header list", CURLE_OUT_OF_MEMORY)
            }
            headerList = list
        }
        if let headerList { try set(CURLOPT_HTTPHEADER, pointer: headerList) }
    }

    private func set(_ option: CURLoption, _ value: Int) throws(HTTPError) {
        try check(option, lr_curl_easy_setopt_long(curl.fn, easy, option, value))
    }

    private func set(_ option: CURLoption, offset value: Int64) throws(HTTPError) {
        try check(option, lr_curl_easy_setopt_off_t(curl.fn, easy, option, curl_off_t(value)))
    }

    private func set(_ option: CURLoption, _ value: String?) throws(HTTPError) {
        try check(option, lr_curl_easy_setopt_string(curl.fn, easy, option, value))
    }

    private func set(_ option: CURLoption, pointer value: UnsafeRawPointer) throws(HTTPError) {
        try check(option, lr_curl_easy_setopt_pointer(curl.fn, easy, option, value))
    }

    private func set(_ option: CURLoption, callback value: curl_write_callback) throws(HTTPError) {
        try check(option, lr_curl_easy_setopt_write_callback(curl.fn, easy, option, value))
    }

    private func check(_ option: CURLoption, _ code: CURLcode) throws(HTTPError) {
        guard code == CURLE_OK else { throw setupFailed("option \(option.rawValue)", code) }
    }

    private func setupFailed(_ what: String, _ code: CURLcode) -> HTTPError {
        let version = String(cString: lr_curl_version(curl.fn))
        return HTTPError(
            .internal, host: url.authority,
            "libcurl refused the \(what) of a request to \(url.authority); linkrouter needs libcurl 7.85 or later built with OpenSSL",
            cause: String(cString: lr_curl_easy_strerror(curl.fn, code)) + "; " + version)
    }
}
