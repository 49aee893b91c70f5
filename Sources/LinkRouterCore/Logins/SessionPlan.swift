/// A `BeginSession` request that passed every rule, before the daemon adds
/// what needs I/O: random secrets, a bound loopback port, the browser.
public struct SessionPlan: Sendable {
    /// Where the authorize URL comes from: each mode carries exactly what it needs.
    public enum Source: Sendable {
        /// The daemon builds the URL; state, nonce and PKCE are its own.
        case builder(endpoint: URIReference, clientID: String, scope: String?, extraParams: [String: String])
        /// The app's backend built the URL; the daemon tracks its state.
        case adopted(url: String, state: String, nonce: String?)
        /// A sign-out at the provider: its end-session endpoint, the client, and the ID token to name.
        case logout(endpoint: URIReference, clientID: String, idTokenHint: String?)
    }

    public let source: Source
    public let owner: Caller
    /// For loopback, rewritten to the bound host and port by `bind(port:)`.
    public private(set) var redirect: CallbackURI
    public let appCallback: CallbackURI?
    public let openBrowser: Bool
    public let browser: String?
    public let ttl: UInt32
    /// The options the login keeps (`LoginOptions`), checked: `resume` named, `require_iss` settled.
    public let options: LoginOptions
    public let claimToken: String?
    public let issuer: String?
    /// Set with the `exchange` option: where the code goes after the callback.
    public let exchange: TokenExchange?
    public let authorizationOrigin: String
    /// The client keeps its own PKCE verifier and sent only this challenge
    /// (in adopt mode, the adopted URL's; nil there means no PKCE at all).
    public let clientChallenge: String?
    /// Where the authorization request is pushed before the browser opens (RFC 9126; the `par` option).
    public var pushEndpoint: String? = nil
    /// Whether the tokens are bound to the session's DPoP key (RFC 9449): nil for
    /// no, else whether binding is required (an account's `dpop`, its provider's metadata).
    public var dpopRequired: Bool? = nil

    /// Who makes the URL, without what each carries.
    public enum Mode: Sendable, Equatable {
        case builder, adopted, logout
    }

    public var mode: Mode {
        switch source {
        case .builder: return .builder
        case .adopted: return .adopted
        case .logout: return .logout
        }
    }

    /// The state an adopted URL carries (it must not be in use already).
    public var adoptedState: String? {
        if case .adopted(_, let state, _) = source { return state }
        return nil
    }

    /// An adopted URL without PKCE: only `state` ties the callback to the login (threat model S9).
    public var restsOnStateAlone: Bool { mode == .adopted && clientChallenge == nil }

    /// Where the daemon must listen for the loopback redirect.
    public var loopbackBinding: LoopbackBinding? { redirect.loopbackBinding }

    /// The daemon bound its listener: a built redirect URI now names the real
    /// port. An adopted URL is the backend's and already names its port.
    public mutating func bind(port: Int) {
        guard mode != .adopted, redirect.style == .loopback else { return }
        redirect = redirect.bound(port: port)
    }

    /// Whether the daemon must draw a verifier (it holds PKCE only in builder
    /// mode without a client-held challenge; a sign-out has none).
    public var needsVerifier: Bool { mode == .builder && clientChallenge == nil }

    /// The session, given its secrets, at `now` (unix seconds): a code login, or a sign-out at
    /// the provider. The authorize URL is `authorizeURL(secrets:)`; the session does not keep it.
    public func makeSession(secrets: SessionSecrets, claimTokenDigest: [UInt8]?, browser: String?, now: Int64)
        -> Session
    {
        let login: Login
        switch source {
        case .builder:
            login = .code(
                CodeLogin(
                    source: .builder, state: secrets.state, nonce: secrets.nonce,
                    codeVerifier: clientChallenge == nil ? secrets.codeVerifier : nil, redirect: redirect,
                    appCallback: appCallback, authorizationOrigin: authorizationOrigin, options: options,
                    browser: browser, issuer: issuer, exchange: exchange?.binding(dpop(secrets))))
        case .adopted(_, let adoptedState, let adoptedNonce):
            login = .code(
                CodeLogin(
                    source: .adopted, state: adoptedState, nonce: adoptedNonce, codeVerifier: nil, redirect: redirect,
                    appCallback: appCallback, authorizationOrigin: authorizationOrigin, options: options,
                    browser: browser, issuer: issuer))
        case .logout:
            login = .signOut(
                ProviderSignOut(state: secrets.state, redirect: redirect, browser: browser, issuer: issuer ?? ""))
        }
        return Session(
            id: secrets.id, owner: owner, claimTokenDigest: claimTokenDigest, login: login,
            createdAt: now, expiresAt: now + Int64(ttl))
    }
}

extension SessionPlan {
    /// The URL the browser opens: built from the endpoint and the secrets, or the adopted one as it is.
    /// After a push (RFC 9126), `requestURI` is what the provider gave back, and the URL carries only it and
    /// `client_id`.
    public func authorizeURL(secrets: SessionSecrets, requestURI: String? = nil) -> String {
        switch source {
        case .builder(let endpoint, let clientID, _, _):
            if let requestURI {
                return PushedAuthorization.browserURL(endpoint: endpoint, clientID: clientID, requestURI: requestURI)
            }
            return AuthorizeURL.withQuery(endpoint, authorizationParameters(secrets: secrets))
        case .adopted(let url, _, _):
            return url
        case .logout(let endpoint, let clientID, let hint):
            return LogoutURL.make(
                endpoint, clientID: clientID, idTokenHint: hint, postLogoutRedirectURI: redirect.string,
                state: secrets.state)
        }
    }

    /// The authorization request's parameters (builder mode; empty for an adopted URL).
    /// A DPoP-bound login names its key's thumbprint (`dpop_jkt`, RFC 9449 §10) in
    /// the URL; a pushed one proves the key with a `DPoP` header on the push instead.
    func authorizationParameters(secrets: SessionSecrets, pushed: Bool = false) -> [(String, String)] {
        guard case .builder(_, let clientID, let scope, var extraParams) = source else { return [] }
        if !pushed, let key = dpop(secrets)?.key { extraParams["dpop_jkt"] = key.thumbprint }
        return AuthorizeURL.parameters(
            clientID: clientID, redirectURI: redirect.string, scope: scope, state: secrets.state, nonce: secrets.nonce,
            codeChallenge: clientChallenge ?? secrets.codeChallenge, appCallbackURI: appCallback?.string,
            extra: extraParams)
    }

    /// The push a builder-mode login makes before its browser opens (RFC 9126), when it makes one.
    public func pushRequest(secrets: SessionSecrets) -> PushRequest? {
        guard let pushEndpoint else { return nil }
        return PushRequest(
            endpoint: pushEndpoint,
            parameters: authorizationParameters(secrets: secrets, pushed: true).map {
                PushRequest.Field(name: $0.0, value: $0.1)
            },
            dpop: dpop(secrets)?.key)
    }

    /// The session's DPoP binding: its key, when the plan binds the tokens and the daemon drew one (`missingDPoPKey`
    /// refuses a plan that binds without).
    func dpop(_ secrets: SessionSecrets) -> DPoPBinding? {
        guard let required = dpopRequired, let key = secrets.dpopKey else { return nil }
        return DPoPBinding(key: key, required: required)
    }

    /// A plan that binds its tokens but was given no key: refused, never signed in unbound.
    public func missingDPoPKey(_ secrets: SessionSecrets) -> RouterError? {
        guard dpopRequired != nil, secrets.dpopKey == nil else { return nil }
        return RouterError(
            .internalError,
            "the daemon drew no DPoP key for a login whose tokens must be bound to one; nothing was started")
    }

    /// `linkctl login`'s default: the whole login (the code exchanged, the ID
    /// token verified) when the issuer's metadata says where everything is and
    /// the daemon holds the verifier; `--code-only` stops at the code.
    public static func exchangesByDefault(_ request: SessionRequest) -> Bool {
        request.issuer != nil && request.authorizationEndpoint == nil && request.authorizeURL == nil
            && request.codeChallenge == nil
    }

    /// Whether the daemon must fetch the issuer's metadata before `make`: an
    /// issuer without an authorization endpoint, or any exchange (which needs the
    /// token endpoint and the keys), or `par=require` (the PAR endpoint). An adopted URL never needs it.
    /// A device login and a sign-out always need it (their endpoints are the metadata's).
    public static func needsDiscovery(_ request: SessionRequest, flow: LoginFlow = .code) -> Bool {
        guard request.authorizeURL == nil, request.issuer != nil else { return false }
        switch flow {
        case .code: return request.authorizationEndpoint == nil || request.exchange || request.par == "require"
        case .device, .signOut: return true
        }
    }

    /// Validates `request` for `owner`: every refusal here leaves nothing behind. `metadata` is
    /// the issuer's, when `needsDiscovery` had it fetched; `flow` a code login or a sign-out.
    public static func make(
        _ request: SessionRequest, flow: LoginFlow = .code, metadata: ProviderMetadata? = nil, owner: Caller,
        limits: Limits
    ) throws(RouterError) -> SessionPlan {
        // Every string option's length, by the option table.
        try SessionRequest.options.checkLengths(request, limits: limits)
        let maxOption = limits.maxOptionBytes

        let ttl = request.ttl ?? 600
        guard ttl >= 1, ttl <= limits.maxTTL else {
            throw .invalid("ttl \(ttl) is out of range; give 1 to \(limits.maxTTL) seconds (default 600)")
        }
        var options = request.login
        if let raw = options.resume, ResumeMode(rawValue: raw) == nil {
            throw .invalid("resume \"\(PercentEncoding.preview(Substring(raw)))\" is not one of browser, client, none")
        }
        options.resume = options.resumeMode.rawValue
        guard options.resumeHosts.count <= limits.maxListEntries else {
            throw .invalid(
                "resume_hosts has \(options.resumeHosts.count) entries; the limit is \(limits.maxListEntries)")
        }
        for host in options.resumeHosts where !OAuthText.isHostName(host) {
            throw .invalid(
                "resume_hosts entry \"\(PercentEncoding.preview(Substring(host)))\" is not a lowercase host name such as api.vipps.no"
            )
        }
        if let prefix = options.resumePathPrefix, !prefix.hasPrefix("/") || !prefix.utf8.allSatisfy(ASCII.isURIByte) {
            throw .invalid("resume_path_prefix must be a path starting with \"/\", such as /vipps-login-idp/")
        }
        if let app = options.returnTo, !OAuthText.isDesktopID(app) {
            throw .invalid(
                "return_to \"\(PercentEncoding.preview(Substring(app)))\" is not a desktop file id such as org.example.App.desktop"
            )
        }
        if let browser = request.browser, !OAuthText.isDesktopID(browser) {
            throw .invalid(
                "browser \"\(PercentEncoding.preview(Substring(browser)))\" is not a desktop file id such as firefox.desktop"
            )
        }
        for (key, token) in [
            ("activation_token", request.activationToken), ("desktop_startup_id", request.desktopStartupID),
        ] {
            guard let token, !ActivationContext.isUsable(token) else { continue }
            throw .invalid(
                "\(key) is no activation token: printable ASCII without spaces, at most \(ActivationContext.maxTokenBytes) bytes"
            )
        }
        if let token = request.claimToken {
            guard token.utf8.count >= 22, token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw .invalid(
                    "claim_token must be at least 22 printable characters (128 bits or more of randomness, such as 32 random bytes in base64url)"
                )
            }
        }
        if let challenge = request.codeChallenge {
            guard challenge.utf8.count == 43, Base64URL.isEncoded(challenge) else {
                throw .invalid(
                    "code_challenge must be the 43-character base64url SHA-256 of your verifier (S256, RFC 7636 §4.2); plain is never used"
                )
            }
        }
        let issuer = try request.issuer.map { i throws(RouterError) in try checkIssuer(i, maxLength: maxOption) }
        if options.requireIssuer && issuer == nil {
            throw .invalid("require_iss needs the issuer option: the iss parameter is compared with it")
        }
        if request.exchange {
            guard issuer != nil else {
                throw .invalid(
                    "exchange needs the issuer option: the issuer's metadata gives the token endpoint and the keys that sign the ID token"
                )
            }
            if request.authorizeURL != nil {
                throw .invalid(
                    "exchange cannot be combined with authorize_url: your backend made the PKCE verifier, so your backend exchanges the code"
                )
            }
            if request.codeChallenge != nil {
                throw .invalid(
                    "exchange cannot be combined with code_challenge: you hold the PKCE verifier, so you exchange the code"
                )
            }
        }
        if needsDiscovery(request, flow: flow) && metadata == nil {
            throw RouterError(.internalError, "the issuer's metadata was not fetched before the session was planned")
        }
        switch flow {
        case .code: break
        case .signOut(let hint):
            return try LogoutURL.plan(
                request, metadata: metadata, idTokenHint: hint, owner: owner, ttl: ttl, limits: limits)
        case .device:
            throw RouterError(.internalError, "a device login has no browser and no plan of this kind")
        }
        if request.appCallbackURI != nil && request.authorizeURL != nil {
            throw .invalid("app_callback_uri is read from the adopted authorize_url; do not pass it separately")
        }

        if let adopted = request.authorizeURL {
            for (name, value) in [
                ("authorization_endpoint", request.authorizationEndpoint), ("client_id", request.clientID),
                ("redirect_uri", request.redirectURI), ("scope", request.scope),
                ("code_challenge", request.codeChallenge),
            ] where value != nil {
                throw .invalid("\(name) cannot be combined with authorize_url: the adopted URL already carries it")
            }
            guard request.extraParams.isEmpty else {
                throw .invalid("extra_params cannot be combined with authorize_url: the adopted URL is used as it is")
            }
            guard request.par == nil else {
                throw .invalid("par cannot be combined with authorize_url: the adopted URL is opened as it is")
            }
            // Refused: the adopted URL is opened as it is, and its code is the app's to exchange.
            _ = try request.stepUp(exchanged: false, scope: nil)
            return try adopt(
                adopted, request: request, owner: owner, ttl: ttl, options: options, issuer: issuer, limits: limits)
        }

        guard let endpointText = request.authorizationEndpoint ?? metadata?.authorizationEndpoint else {
            throw .invalid(
                "give issuer (or authorization_endpoint), client_id and redirect_uri, or an authorize_url your backend built"
            )
        }
        let endpoint = try AuthorizeURL.parseEndpoint(
            endpointText, role: "authorization_endpoint", maxLength: maxOption)
        for pair in try QueryParameters.parse(endpoint.query).pairs
        where AuthorizeURL.reservedParameters.contains(pair.name) {
            throw .invalid("authorization_endpoint already carries \"\(pair.name)\" in its query; the daemon sets it")
        }
        guard let clientID = request.clientID, OAuthText.isVisibleText(clientID) else {
            throw .invalid(
                request.clientID == nil
                    ? "client_id is missing" : "client_id must be printable ASCII (RFC 6749 Appendix A)")
        }
        guard let redirectText = request.redirectURI else { throw .invalid("redirect_uri is missing") }
        let redirect = try CallbackURI.parse(redirectText, role: "redirect_uri", maxLength: maxOption)
        if let scope = request.scope, !OAuthText.isScope(scope) {
            throw .invalid(
                "scope must be space-separated tokens of printable ASCII without quotes or backslashes (RFC 6749 §3.3)")
        }
        guard request.extraParams.count <= limits.maxListEntries else {
            throw .invalid(
                "extra_params has \(request.extraParams.count) entries; the limit is \(limits.maxListEntries)")
        }
        for (key, value) in request.extraParams {
            if AuthorizeURL.reservedParameters.contains(key) {
                throw .invalid("extra_params may not set \"\(key)\"; the daemon sets it (use its own option)")
            }
            guard !key.isEmpty, key.utf8.count <= 128, value.utf8.count <= maxOption,
                !key.utf8.contains(where: ASCII.isControlOrSpace),
                !value.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F })
            else {
                throw .invalid(
                    "extra_params entry \"\(PercentEncoding.preview(Substring(key)))\" has an empty or oversized name, or a control character"
                )
            }
        }
        let appCallback = try request.appCallbackURI.map { a throws(RouterError) in
            try parseAppCallback(a, maxLength: maxOption)
        }
        let stepUp = try request.stepUp(exchanged: request.exchange, scope: request.scope)
        let exchange =
            request.exchange
            ? metadata.map {
                TokenExchange(
                    clientID: clientID, tokenEndpoint: $0.tokenEndpoint, jwksURI: $0.jwksURI,
                    expectsIDToken: request.scope?.split(separator: " ").contains("openid") ?? false,
                    account: request.account,
                    accountInMemory: request.accountStore == .memory, stepUp: stepUp)
            } : nil
        return SessionPlan(
            source: .builder(
                endpoint: endpoint, clientID: clientID, scope: request.scope,
                extraParams: request.parameters(with: stepUp)),
            owner: owner, redirect: redirect, appCallback: appCallback, openBrowser: request.openBrowser,
            browser: request.browser, ttl: ttl,
            options: options.requiringIssuer(metadata?.issParameterSupported == true),
            claimToken: request.claimToken, issuer: issuer, exchange: exchange,
            authorizationOrigin: AuthorizeURL.origin(of: endpoint), clientChallenge: request.codeChallenge,
            pushEndpoint: try PushedAuthorization.endpoint(
                PushedAuthorization.Mode(option: request.par, name: "par"), metadata: metadata),
            dpopRequired: exchange == nil
                ? nil
                : try request.dpop.flatMap { m throws(RouterError) in
                    try DPoPBinding.decide(m, metadata: metadata)
                })
    }

    /// An issuer identifier as OpenID Connect Discovery §2 and RFC 9207 §2 define it.
    public static func checkIssuer(_ iss: String, maxLength: Int) throws(RouterError) -> String {
        guard let uri = try? URIReference.strict(iss, maxLength: maxLength), isIssuerScheme(uri),
            uri.query == nil, uri.fragment == nil, !uri.hasUserinfo
        else {
            throw .invalid(
                "issuer must be an https URL (http only on a loopback host, for a provider run locally) with no query or fragment (RFC 9207 §2, OpenID Connect Discovery §2)"
            )
        }
        return iss
    }

    /// https, or http on a loopback host (`IssuerScheme`).
    static func isIssuerScheme(_ uri: URIReference) -> Bool { IssuerScheme.allows(uri) }

    /// A provider's endpoint, or a page a person is sent to: https (http only on
    /// a loopback host), no fragment, no userinfo. The one rule for metadata
    /// endpoints, an account's own endpoints and a device login's pages.
    static func isEndpoint(_ value: String, maxLength: Int) -> Bool {
        guard let uri = try? URIReference.strict(value, maxLength: maxLength) else { return false }
        return isIssuerScheme(uri) && uri.fragment == nil && !uri.hasUserinfo
    }

    static func parseAppCallback(_ text: String, maxLength: Int) throws(RouterError) -> CallbackURI {
        let uri = try CallbackURI.parse(text, role: "app_callback_uri", maxLength: maxLength)
        guard uri.style != .loopback else {
            throw .invalid(
                "app_callback_uri is opened by the Vipps/MobilePay app: use a custom scheme or an https URL, not loopback"
            )
        }
        return uri
    }

    static func adopt(
        _ text: String, request: SessionRequest, owner: Caller, ttl: UInt32, options: LoginOptions,
        issuer: String?, limits: Limits
    ) throws(RouterError) -> SessionPlan {
        let uri = try AuthorizeURL.parseEndpoint(text, role: "authorize_url", maxLength: limits.maxAuthorizeURLBytes)
        let query = try QueryParameters.parse(uri.query, limits: limits.query)
        guard let state = try query.single("state") else {
            throw .invalid("the adopted authorize_url has no state; the daemon tracks the session by it")
        }
        guard OAuthText.isAdoptableState(state) else {
            throw .invalid(
                "the adopted state must be 16 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 9700 §4.7); this one is \(state.utf8.count) characters"
            )
        }
        guard let redirectText = try query.single("redirect_uri") else {
            throw .invalid("the adopted authorize_url has no redirect_uri")
        }
        let redirect = try CallbackURI.parse(redirectText, role: "redirect_uri", maxLength: limits.maxOptionBytes)
        if redirect.style == .loopback && redirect.loopbackPort == 0 {
            throw .invalid(
                "the adopted redirect_uri \(redirectText) has no port; an adopted URL cannot be rewritten, so it must name the loopback port to listen on"
            )
        }
        let appCallback = try query.single("app_callback_uri").map { a throws(RouterError) in
            try parseAppCallback(a, maxLength: limits.maxOptionBytes)
        }
        let flow = try query.single("requested_flow")
        if flow == "app_to_app" && appCallback == nil {
            throw .invalid("the adopted authorize_url asks for requested_flow=app_to_app but has no app_callback_uri")
        }
        let challenge = try query.single("code_challenge")
        let method = try query.single("code_challenge_method")
        if let method, method != "S256" {
            throw .invalid(
                "the adopted authorize_url uses code_challenge_method=\(method); only S256 is accepted (RFC 9700 §2.1.1)"
            )
        }
        if challenge != nil && method == nil {
            throw .invalid(
                "the adopted authorize_url has a code_challenge but no code_challenge_method, which means plain (RFC 7636 §4.3); add code_challenge_method=S256"
            )
        }
        guard try query.single("response_type") == "code" else {
            throw .invalid("the adopted authorize_url must use response_type=code")
        }
        return SessionPlan(
            source: .adopted(url: text, state: state, nonce: try query.single("nonce")),
            owner: owner, redirect: redirect, appCallback: appCallback, openBrowser: request.openBrowser,
            browser: request.browser, ttl: ttl, options: options, claimToken: request.claimToken, issuer: issuer,
            exchange: nil, authorizationOrigin: AuthorizeURL.origin(of: uri), clientChallenge: challenge)
    }
}
