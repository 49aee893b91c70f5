internal import CCurl
import Glibc
import SystemKit

/// libcurl, opened by the first `HTTPClient`: its functions, looked up once, for
/// the shims in CCurl/shim.h (`lr_curl_…(curl.fn, …)`). Linked, it would load
/// some thirty libraries into every daemon start although only logins that
/// exchange a code for tokens make requests.
final class LibCurl: @unchecked Sendable {
    // Immutable after init; the pointers are code in a library never unloaded.
    let fn: lr_curl

    /// Debian's libcurl4 (OpenSSL), the build the client's TLS settings assume.
    static let soname = "libcurl.so.4"

    /// The library, or why it cannot be used (then every `HTTPClient` init throws
    /// it; nothing else in the daemon is affected).
    static let shared = load(soname)

    /// Opens `soname` (tests give one that is not libcurl), resolves every
    /// function HTTPKit calls, and runs `curl_global_init` before anything else.
    static func load(_ soname: String) -> Result<LibCurl, HTTPError> {
        forgetKeyLogFile()
        func unavailable(_ why: String) -> HTTPError {
            HTTPError(
                .unavailable, host: "",
                "HTTPS requests (token exchange) need \(soname) (Debian: libcurl4), which \(why)")
        }
        let library: SharedLibrary
        switch SharedLibrary.open(soname) {
        case .success(let l): library = l
        case .failure(let e): return .failure(unavailable("cannot be loaded: " + e.reason))
        }
        let symbols: [(String, WritableKeyPath<lr_curl_functions, UnsafeMutableRawPointer?>)] = [
            ("curl_global_init", \.global_init), ("curl_version", \.version), ("curl_free", \.free),
            ("curl_easy_init", \.easy_init), ("curl_easy_cleanup", \.easy_cleanup), ("curl_easy_setopt", \.easy_setopt),
            ("curl_easy_getinfo", \.easy_getinfo), ("curl_easy_strerror", \.easy_strerror),
            ("curl_multi_init", \.multi_init), ("curl_multi_cleanup", \.multi_cleanup),
            ("curl_multi_add_handle", \.multi_add_handle),
            ("curl_multi_remove_handle", \.multi_remove_handle), ("curl_multi_setopt", \.multi_setopt),
            ("curl_multi_socket_action", \.multi_socket_action), ("curl_multi_info_read", \.multi_info_read),
            ("curl_multi_strerror", \.multi_strerror),
            ("curl_share_init", \.share_init), ("curl_share_cleanup", \.share_cleanup),
            ("curl_share_setopt", \.share_setopt),
            ("curl_slist_append", \.slist_append), ("curl_slist_free_all", \.slist_free_all),
            ("curl_url", \.url), ("curl_url_cleanup", \.url_cleanup), ("curl_url_set", \.url_set),
            ("curl_url_get", \.url_get),
        ]
        var functions = lr_curl_functions()
        let missing = library.fill(&functions, symbols)
        guard missing.isEmpty else {
            library.close()
            return .failure(unavailable("lacks \(missing.joined(separator: ", ")): it is not libcurl, or too old"))
        }
        let table = UnsafeMutablePointer<lr_curl_functions>.allocate(capacity: 1)
        table.initialize(to: functions)
        // Before any other call; for `shared`, once per process (Swift runs a global's initialiser exactly once).
        guard lr_curl_global_init(table) == CURLE_OK else {
            table.deallocate()
            return .failure(unavailable("could not be initialised (curl_global_init failed)"))
        }
        return .success(LibCurl(UnsafePointer(table)))
    }

    /// libcurl built with OpenSSL (Debian's 7.88 does) writes every TLS
    /// session's secrets to the file `$SSLKEYLOGFILE` names, opened in
    /// `curl_global_init`, and OpenSSL 3.5 can be built to do the same; there is
    /// no option to refuse it. A daemon carrying login codes and tokens must
    /// never do that, so the variable goes before libcurl is loaded and stays
    /// gone: programs the daemon starts afterwards (browsers) do not inherit it
    /// either. Removed only when set: `unsetenv` is not safe against another
    /// thread's `getenv`.
    private static func forgetKeyLogFile() {
        if getenv("SSLKEYLOGFILE") != nil { unsetenv("SSLKEYLOGFILE") }
    }

    private init(_ fn: lr_curl) { self.fn = fn }

    deinit { fn.deallocate() }
}
