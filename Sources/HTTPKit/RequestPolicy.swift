/// The rules every request meets, enforced by the client rather than left to
/// each caller: which URLs may be fetched, and which headers the client owns.
enum RequestPolicy {
    /// Hosts that are this machine whatever DNS says: libcurl (7.78 and later)
    /// answers `localhost` itself with loopback addresses.
    static let loopbackHosts: Set<String> = ["127.0.0.1", "[::1]", "localhost"]

    /// Headers the client sets itself, or that would undo its policy (cookies,
    /// framing, a different Host than the one verified by TLS).
    static let reservedHeaders: Set<String> = [
        "host", "user-agent", "cookie", "cookie2", "content-length", "transfer-encoding", "expect", "connection",
        "te", "trailer", "upgrade", "proxy-authorization", "proxy-connection", "keep-alive",
    ]

    enum Verdict: Equatable {
        case allow(Allowance)
        /// Why not, for the error message.
        case refuse(String)
    }

    /// What libcurl may do for an allowed URL.
    struct Allowance: Equatable {
        /// `CURLOPT_PROTOCOLS_STR`: `https`, or `http,https` for a loopback host.
        let protocols: String
        /// Loopback is always reached directly, whatever the proxy variables say.
        let direct: Bool
    }

    /// Only https, except http to a loopback host (a local provider, RFC 8252 §8.3's
    /// reasoning: the traffic never leaves the machine); never credentials in the URL.
    static func allowance(scheme: String, host: String, hasCredentials: Bool) -> Verdict {
        let loopback = loopbackHosts.contains(host.lowercased())
        if hasCredentials {
            return .refuse("refused a URL for \(host) with credentials in it; send them in a header or the form body")
        }
        switch scheme {
        case "https": return .allow(Allowance(protocols: "https", direct: loopback))
        case "http" where loopback: return .allow(Allowance(protocols: "http,https", direct: true))
        case "http":
            return .refuse("refused http://\(host): only https is allowed, or http to 127.0.0.1, [::1] or localhost")
        default:
            return .refuse("refused \(scheme)://\(host): only https is allowed")
        }
    }

    /// nil, or why the header may not be sent.
    static func headerProblem(name: String, value: String) -> String? {
        let tokenPunctuation = Set("!#$%&'*+-.^_`|~".utf8)
        let isToken =
            !name.isEmpty
            && name.utf8.allSatisfy {
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
                    || tokenPunctuation.contains($0)
            }
        guard isToken else { return "header name \"\(name)\" is not an HTTP token" }
        guard !reservedHeaders.contains(name.lowercased()) else {
            return "header \(name) is set by the client itself and cannot be given"
        }
        // Field values may hold HTAB, SP, VCHAR and obs-text; CR, LF and NUL would split or cut the request.
        guard value.utf8.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
            return "header \(name) has a control character in its value"
        }
        return nil
    }
}
