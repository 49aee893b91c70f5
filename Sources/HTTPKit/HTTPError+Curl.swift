internal import CCurl

/// libcurl's result codes, sorted into the codes a caller acts on.
extension HTTPError {
    /// `host` is host and port, for messages; `name` the host alone, which the certificate must match;
    /// `cause` libcurl's words (its error buffer, or the code's text).
    static func transferFailed(
        _ code: CURLcode, host: String, name: String, cause: String, request: HTTPRequest,
        caFile: String?
    ) -> HTTPError {
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return HTTPError(
                .timeout, host: host,
                "\(host) did not answer in time (connect limit \(request.connectTimeoutMilliseconds) ms, "
                    + "whole request \(request.timeoutMilliseconds) ms); check that the provider is up and reachable",
                cause: cause)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return HTTPError(
                .resolve, host: host, "could not resolve \(host); check the name and the network", cause: cause)
        case CURLE_COULDNT_CONNECT:
            return HTTPError(
                .connect, host: host, "could not connect to \(host); check that the provider is up and reachable",
                cause: cause)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_INVALIDCERTSTATUS,
            CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            let store = caFile.map { "the CA file \($0)" } ?? "the system's CA store"
            return HTTPError(
                .tls, host: host,
                "the certificate of \(host) is not trusted; it must be valid for \(name) and chain to \(store)",
                cause: cause)
        case CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CRL_BADFILE:
            let store = caFile.map { "the CA file \($0)" } ?? "the system's CA store"
            return HTTPError(.tls, host: host, "could not verify \(host): \(store) cannot be read", cause: cause)
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CIPHER, CURLE_SSL_CERTPROBLEM, CURLE_USE_SSL_FAILED,
            CURLE_SSL_SHUTDOWN_FAILED,
            CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED:
            return HTTPError(
                .tls, host: host, "the TLS handshake with \(host) failed; it must speak TLS 1.2 or later on that port",
                cause: cause)
        case CURLE_FILESIZE_EXCEEDED:
            return HTTPError(
                .tooLarge, host: host,
                "the response from \(host) was refused: its body exceeds the \(request.maxResponseBytes)-byte limit")
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            return HTTPError(.refusedURL, host: host, "refused the URL for \(host)", cause: cause)
        case CURLE_OUT_OF_MEMORY, CURLE_FAILED_INIT, CURLE_NOT_BUILT_IN, CURLE_UNKNOWN_OPTION,
            CURLE_BAD_FUNCTION_ARGUMENT:
            return HTTPError(.internal, host: host, "libcurl failed on a request to \(host)", cause: cause)
        default:
            return HTTPError(
                .protocol, host: host, "the exchange with \(host) broke off or its answer is not valid HTTP",
                cause: cause)
        }
    }
}
