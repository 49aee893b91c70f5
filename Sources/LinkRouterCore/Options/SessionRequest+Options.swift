/// `BeginSession`'s and `Login`'s options (linkctl `begin` and `login`).
extension SessionRequest {
    public static let options = OptionTable<SessionRequest>(
        method: "BeginSession",
        [
            OptionRow(
                "authorization_endpoint", .string({ $0.authorizationEndpoint = $1 }, get: { $0.authorizationEndpoint }),
                limit: .option,
                flag: .value("authorization-endpoint", placeholder: "URL"),
                help: "the provider's authorize endpoint (builder mode)",
                doc:
                    "the provider's authorize endpoint: `https`, or `http` on a loopback address (local providers); no userinfo, no fragment, none of the parameters the daemon sets in its query"
            ),
            OptionRow(
                "client_id", .string({ $0.clientID = $1 }, get: { $0.clientID }), limit: .option,
                flag: .value("client-id", placeholder: "ID"), help: "your OAuth client_id",
                doc: "printable ASCII"),
            OptionRow(
                "redirect_uri", .string({ $0.redirectURI = $1 }, get: { $0.redirectURI }), limit: .option,
                flag: .value("redirect-uri", placeholder: "URI"),
                help: "registered callback: com.example.app:/cb, https://…, or http://127.0.0.1/cb",
                doc: "the registered callback, in one of the three styles below"),
            OptionRow(
                "scope", .string({ $0.scope = $1 }, get: { $0.scope }), limit: .option,
                flag: .value("scope", placeholder: "SCOPE"), help: "space-separated scopes, e.g. \"openid profile\"",
                doc: "space-separated scope tokens (RFC 6749 §3.3)"),
            OptionRow(
                "extra_params", .stringMap { $0.extraParams = $1 },
                flag: .pairs("param"), help: "an extra authorize parameter",
                doc: "more authorize parameters (`prompt`, `audience`…); may not set a parameter the daemon sets"),
            OptionRow(
                "authorize_url", .string({ $0.authorizeURL = $1 }, get: { $0.authorizeURL }), limit: .authorizeURL,
                flag: .value("authorize-url", placeholder: "URL"),
                help: "adopt an authorize URL your backend built (instead of the four above)",
                doc: "adopt mode (instead of the four above and `extra_params`)"),
            OptionRow(
                "app_callback_uri", .string({ $0.appCallbackURI = $1 }, get: { $0.appCallbackURI }), limit: .option,
                flag: .value("app-callback-uri", placeholder: "URI"),
                help: "Vipps/MobilePay app-to-app: where the app returns",
                doc: "Vipps/MobilePay app-to-app: where the app returns (custom scheme or https)"),
            LoginOptions.sessionRow(LoginOptions.resumeRow),
            LoginOptions.sessionRow(LoginOptions.resumeHostsRow),
            LoginOptions.sessionRow(LoginOptions.resumePathPrefixRow),
            LoginOptions.sessionRow(LoginOptions.returnToRow),
            OptionRow(
                "browser", .string({ $0.browser = $1 }, get: { $0.browser }), limit: .option,
                flag: .value("browser", placeholder: "DESKTOP-ID"),
                help: "open the login in this browser, e.g. firefox.desktop",
                doc:
                    "a desktop file id (`firefox.desktop`); default: the user's default `x-scheme-handler/https` handler that is not linkrouter"
            ),
            OptionRow(
                "activation_token", .string({ $0.activationToken = $1 }, get: { $0.activationToken }),
                limit: .bytes(ActivationContext.maxTokenBytes),
                flag: .value("activation-token", placeholder: "TOKEN"),
                help: "an xdg-activation token for the browser the login opens (default: $XDG_ACTIVATION_TOKEN)",
                doc:
                    "the caller's xdg-activation token (xdg-activation-v1), from the window the person used: the browser the daemon opens gets it in `XDG_ACTIVATION_TOKEN` and `DESKTOP_STARTUP_ID`, so its window comes to the front on Wayland; printable ASCII without spaces, at most 1024 bytes; never stored"
            ),
            OptionRow(
                "desktop_startup_id", .string({ $0.desktopStartupID = $1 }, get: { $0.desktopStartupID }),
                limit: .bytes(ActivationContext.maxTokenBytes),
                flag: .value("desktop-startup-id", placeholder: "ID"),
                help: "an X11 startup-notification id (or GTK's token under that name) for the browser",
                doc:
                    "the same for toolkits that hand the token as a startup id (GTK 4.8, GLib 2.74); with both, `activation_token` is the one handed on"
            ),
            OptionRow(
                "open_browser", .bool { $0.openBrowser = $1 },
                flag: .setsFalse("no-browser"), help: "do not open a browser; print the authorize URL only",
                doc: "default true"),
            OptionRow(
                "ttl", .uint32 { $0.ttl = $1 },
                flag: .value("ttl", placeholder: "SECONDS"), help: "how long the session may wait (default 600)",
                doc: "seconds the session may wait, 1–3600, default 600"),
            OptionRow(
                "issuer", .string({ $0.issuer = $1 }, get: { $0.issuer }), limit: .option,
                flag: .value("issuer", placeholder: "URL"),
                help: "the provider's issuer: its metadata gives the endpoints; a callback's iss must equal it",
                doc:
                    "the provider's issuer identifier (https; http only on a loopback host, for a provider run locally). Without `authorization_endpoint`, the daemon fetches its metadata (OpenID Connect Discovery, then RFC 8414) and takes the endpoints from it; a callback's `iss` must equal it (RFC 9207), and must be present when the metadata says `authorization_response_iss_parameter_supported`"
            ),
            OptionRow(
                // 64 as a caller gives it (`Account.checkName`); an app's account is then `KIND:ID/NAME`
                // (`AccountKey.qualifiedName`).
                "account", .string({ $0.account = $1 }, get: { $0.account }), limit: .bytes(330),
                flag: .value("account", placeholder: "NAME"),
                help: "sign in to this account: its provider options, and its tokens kept",
                doc:
                    "an account's name (`linkctl accounts`): the daemon takes `issuer`, `client_id`, `scope`, `redirect_uri` and the authorize parameters from the account (not given with them), exchanges the code, and keeps the tokens (`GetToken`)"
            ),
            OptionRow(
                "exchange", .bool { $0.exchange = $1 },
                flag: .setsTrue("exchange"),
                help: "exchange the code for tokens and verify the ID token (needs --issuer)",
                doc:
                    "default false. With `issuer`: after the callback the daemon posts the code and its verifier to the token endpoint and `Wait` returns the tokens and the verified ID-token claims instead of the code (see \"Tokens\" below). Not with `authorize_url` or `code_challenge`, where the daemon holds no verifier"
            ),
            OptionRow(
                "par", .string({ $0.par = $1 }, get: { $0.par }), limit: .option,
                flag: .value("par", placeholder: "MODE"),
                help: "push the authorization request first (RFC 9126): auto (default), require or off",
                doc:
                    "`auto` (default): when the issuer's metadata lists `pushed_authorization_request_endpoint`, the daemon posts the authorization request there and opens the browser with only `client_id` and the `request_uri` it got back (RFC 9126); `require`: always, and a provider without the endpoint is an error; `off`: never (an error where the metadata says `require_pushed_authorization_requests`). Builder mode only"
            ),
            OptionRow(
                TokenOptionNames.acrValues.1, .string({ $0.acrValues = $1 }, get: { $0.acrValues }), limit: .option,
                flag: .value(TokenOptionNames.acrValues.0, placeholder: "ACR"),
                help: "a step-up: sign in with one of these authentication classes (space-separated)",
                doc:
                    "a step-up (RFC 9470): the authentication context classes the sign-in must be made with, space-separated, in order of preference (OpenID Connect Core §3.1.2.1); sent to the provider, and the ID token's `acr` must be one of them (else `IDTokenRejected`, and nothing is kept: an account's earlier sign-in stays). With `exchange` or an account only, and a scope with `openid` (the ID token says how the person signed in)"
            ),
            OptionRow(
                TokenOptionNames.maxAge.1, .uint32({ $0.maxAge = $1 }, get: { $0.maxAge }),
                flag: .value(TokenOptionNames.maxAge.0, placeholder: "SECONDS"),
                help: "a step-up: the person must have authenticated at most SECONDS ago",
                doc:
                    "a step-up (RFC 9470): the most seconds since the person authenticated at the provider; sent as `max_age`, and the ID token's `auth_time` must be that recent (a 120 s clock skew allowed; else `IDTokenRejected`). With `exchange` or an account only, and a scope with `openid`"
            ),
            LoginOptions.sessionRow(LoginOptions.requireIssuerRow),
            OptionRow(
                "code_challenge", .string({ $0.codeChallenge = $1 }, get: { $0.codeChallenge }), limit: .option,
                flag: .value("code-challenge", placeholder: "S256"),
                help: "keep your own PKCE verifier; send only its S256 challenge",
                doc:
                    "client-held PKCE: the 43-character S256 challenge of a verifier the daemon never sees (recommended for apps that can keep a secret in memory: an intercepted code is then useless)"
            ),
            OptionRow(
                "claim_token", .string({ $0.claimToken = $1 }, get: { $0.claimToken }), limit: .bytes(256),
                flag: .value("claim-token", placeholder: "TOKEN"),
                help: "a secret (22+ characters) that lets another process claim the session",
                doc:
                    "a secret of the client's (≥ 22 printable characters; use 32 random bytes); lets a restarted client `Claim` the session"
            ),
        ])
}

extension SessionRequest {
    /// `BeginLogout`'s options: the browser ones of `BeginSession`, the same rows.
    public static let logoutOptions = OptionTable<SessionRequest>(
        method: "BeginLogout",
        ["browser", "activation_token", "desktop_startup_id", "open_browser", "ttl"].compactMap { options.named($0) })
}
