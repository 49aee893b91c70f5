/// `SignProof(account, method, url, options)` once decoded: a DPoP proof
/// (RFC 9449 §7) of the account's key for one request to a resource server,
/// bound to the account's access token by its hash (`ath`). The key never
/// leaves the daemon; only the proof, good for this method and URL, does.
public struct ProofRequest: Sendable, Equatable {
    public var method: String
    public var url: String
    /// The resource server's `DPoP-Nonce`, when it asked for one (§9).
    public var nonce: String?
    /// The access token the proof goes with; it must be the account's current one. Default: the current one.
    public var accessToken: String?
    /// Asked with `GetToken` (`dpop_method`): answered with the token and its proof together, not the proof alone.
    public var withToken = false

    public init(method: String, url: String) {
        self.method = method
        self.url = url
    }

    public static let options = OptionTable<ProofRequest>(
        method: "SignProof",
        [
            OptionRow(
                "nonce", .string({ $0.nonce = $1 }, get: { $0.nonce }), limit: .bytes(512),
                flag: .value("nonce", placeholder: "NONCE"), help: "the DPoP-Nonce the resource server answered with",
                doc: "the resource server's `DPoP-Nonce` (RFC 9449 §9), when it asked for one"),
            OptionRow(
                "access_token", .string({ $0.accessToken = $1 }, get: { $0.accessToken }), limit: .bytes(16384),
                flag: .value("access-token", placeholder: "TOKEN"),
                help: "the access token the proof goes with (default: the account's current one)",
                doc:
                    "the access token the proof goes with (its `ath`), as `GetToken` gave it; refused with `StaleToken` when it is no longer the account's. Default: the account's current access token, fresh as `GetToken` would give it"
            ),
        ])

    /// The request checked: a method token (RFC 9110 §9.1), an absolute https URL
    /// (http on a loopback host) without userinfo, a nonce of visible ASCII (§8.1).
    public func checked(limits: Limits) throws(RouterError) -> ProofRequest {
        try Self.options.checkLengths(self, limits: limits)
        let tchar: (UInt8) -> Bool = { b in ASCII.isAlpha(b) || ASCII.isDigit(b) || "!#$%&'*+-.^_`|~".utf8.contains(b) }
        guard (1...32).contains(method.utf8.count), method.utf8.allSatisfy(tchar) else {
            throw .invalid(
                "method must be an HTTP method (GET, POST, …), not \"\(PercentEncoding.preview(Substring(method)))\"")
        }
        // Only `htu` (the URL without query and fragment) goes into the proof.
        guard url.utf8.count <= 8192, SessionPlan.isEndpoint(DPoPProofTarget.uri(url), maxLength: 8192) else {
            throw .invalid(
                "url must be an https URL (http only on a loopback host) without userinfo: the resource the proof is for"
            )
        }
        if let nonce, !OAuthText.isDPoPNonce(nonce) {
            throw .invalid(
                "nonce must be the server's DPoP-Nonce: visible ASCII without quotes or backslashes (RFC 9449 §8.1)")
        }
        if let accessToken, accessToken.isEmpty || !OAuthText.isVisibleText(accessToken) {
            throw .invalid("access_token must be the access token GetToken gave, printable ASCII")
        }
        return self
    }
}

/// Never the access token: a request travels inside held calls and pending operations, which reach log lines.
extension ProofRequest: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { "proof request for \(method) \(DPoPProofTarget.uri(url))" }
    public var debugDescription: String { description }
}
