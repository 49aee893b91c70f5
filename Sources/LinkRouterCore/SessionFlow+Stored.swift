/// A session's flow as the store keeps it: one value, versioned, so a new
/// flow or a new field is a new case or a new line, not a column and a
/// migration. Lines of `key=value`; no value can hold a line break (each was
/// checked as a URI, a host name, a desktop id or printable ASCII when the
/// session began). Unknown keys are ignored, so a newer daemon's value still reads.
extension SessionFlow {
    /// The value's format version (a line `v=1` first).
    static let storedVersion = "1"

    public var stored: String {
        switch self {
        case .code(let c):
            var lines = ["v=" + Self.storedVersion, "source=" + c.source.rawValue, "state=" + c.state,
                         "redirect=" + c.redirect.string, "origin=" + c.authorizationOrigin, "resume=" + c.resumeMode.rawValue]
            func add(_ key: String, _ value: String?) { if let value { lines.append(key + "=" + value) } }
            add("nonce", c.nonce)
            add("verifier", c.codeVerifier)
            add("app_callback", c.appCallback?.string)
            if !c.resumeHosts.isEmpty { add("resume_hosts", c.resumeHosts.joined(separator: " ")) }
            add("resume_path_prefix", c.resumePathPrefix)
            add("browser", c.browser)
            add("issuer", c.issuer)
            if c.requireIssuer { add("require_iss", "1") }
            if c.resumeOpened { add("resume_opened", "1") }
            if let e = c.exchange {
                add("exchange_client_id", e.clientID)
                add("exchange_token_endpoint", e.tokenEndpoint)
                add("exchange_jwks_uri", e.jwksURI)
                if e.expectsIDToken { add("exchange_openid", "1") }
            }
            return lines.joined(separator: "\n")
        }
    }

    /// Reads a stored flow of `kind`; nil when it is unreadable. `callback`
    /// parses a callback URI (the store shares one parse per distinct text).
    public init?(kind: String, stored: String, callback: (String, String) -> CallbackURI?) {
        guard kind == "code" else { return nil }
        var version = false
        var source: CodeFlow.Source?, state: String?, redirect: CallbackURI?, origin: String?, resume: ResumeMode?
        var nonce: String?, verifier: String?, appCallback: CallbackURI?, hosts: [String] = [], prefix: String?
        var browser: String?, issuer: String?, requireIssuer = false, resumeOpened = false
        var client: String?, tokenEndpoint: String?, jwks: String?, openid = false
        // One pass, no dictionary: a restore of 10,000 sessions reads 10,000 of these.
        for line in stored.utf8.split(separator: 0x0A) {
            guard let eq = line.firstIndex(of: 0x3D) else { return nil }
            let key = Substring(line[..<eq])
            let value = String(Substring(line[line.index(after: eq)...]))
            switch key {
            case "v": version = value == Self.storedVersion
            case "source": source = CodeFlow.Source(rawValue: value)
            case "state": state = value
            case "redirect": redirect = callback(value, "redirect_uri")
            case "origin": origin = value
            case "resume": resume = ResumeMode(rawValue: value)
            case "nonce": nonce = value
            case "verifier": verifier = value
            case "app_callback":
                guard let parsed = callback(value, "app_callback_uri") else { return nil }
                appCallback = parsed
            case "resume_hosts": hosts = value.split(separator: " ").map(String.init)
            case "resume_path_prefix": prefix = value
            case "browser": browser = value
            case "issuer": issuer = value
            case "require_iss": requireIssuer = value == "1"
            case "resume_opened": resumeOpened = value == "1"
            case "exchange_client_id": client = value
            case "exchange_token_endpoint": tokenEndpoint = value
            case "exchange_jwks_uri": jwks = value
            case "exchange_openid": openid = value == "1"
            default: break
            }
        }
        guard version, let source, let state, let redirect, let origin, let resume else { return nil }
        var exchange: TokenExchange?
        if let client, let tokenEndpoint, let jwks {
            exchange = TokenExchange(clientID: client, tokenEndpoint: tokenEndpoint, jwksURI: jwks, expectsIDToken: openid)
        }
        self = .code(CodeFlow(
            source: source, state: state, nonce: nonce, codeVerifier: verifier, redirect: redirect, appCallback: appCallback,
            authorizationOrigin: origin, resumeHosts: hosts, resumePathPrefix: prefix, resumeMode: resume, browser: browser,
            issuer: issuer, requireIssuer: requireIssuer, exchange: exchange, resumeOpened: resumeOpened))
    }
}
