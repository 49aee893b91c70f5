/// One `BeginSession` option, declared once: its D-Bus key and type, where
/// its value goes in a `SessionRequest`, its length limit, its linkctl flag
/// and its line in docs/dbus-api.md. The daemon's decoder, linkctl's `begin`
/// and `login` flags, `SessionPlan`'s length checks and the docs test all
/// read `SessionOption.all`.
public struct SessionOption: Sendable {
    /// The value's D-Bus type and the `SessionRequest` field it fills.
    public enum Value: Sendable {
        case string(SessionRequest.Text)
        case bool(SessionRequest.Flag)
        /// `ttl`, the one number.
        case uint32
        /// `resume_hosts`, the one list.
        case strings
        /// `extra_params`, the one map.
        case stringMap

        /// The D-Bus signature the option's variant must hold.
        public var signature: String {
            switch self {
            case .string: return "s"
            case .bool: return "b"
            case .uint32: return "u"
            case .strings: return "as"
            case .stringMap: return "a{ss}"
            }
        }
    }

    /// How linkctl spells the option.
    public enum Flag: Sendable {
        /// `--name VALUE`.
        case value(String, placeholder: String)
        /// `--name VALUE`, repeatable: each adds one entry to the list.
        case repeated(String, placeholder: String)
        /// `--name NAME=VALUE`, repeatable: each adds one pair.
        case pairs(String)
        /// `--name`: sets the boolean option to `true`.
        case setsTrue(String)
        /// `--name`: sets the boolean option to `false`.
        case setsFalse(String)

        public var name: String {
            switch self {
            case .value(let n, _), .repeated(let n, _), .pairs(let n), .setsTrue(let n), .setsFalse(let n): return n
            }
        }
    }

    /// A string option's longest value.
    public enum Limit: Sendable {
        /// `Limits.maxOptionBytes` (2 KiB by default).
        case option
        /// `Limits.maxAuthorizeURLBytes` (8 KiB by default).
        case authorizeURL
        case bytes(Int)
        case none

        public func bytes(_ limits: Limits) -> Int? {
            switch self {
            case .option: return limits.maxOptionBytes
            case .authorizeURL: return limits.maxAuthorizeURLBytes
            case .bytes(let n): return n
            case .none: return nil
            }
        }
    }

    public let key: String
    public let value: Value
    public let limit: Limit
    public let flag: Flag
    /// linkctl's help line.
    public let help: String
    /// The line in docs/dbus-api.md's option table.
    public let doc: String

    /// Every option, in linkctl's order (docs/dbus-api.md lists them in the same order).
    public static let all: [SessionOption] = [
        SessionOption(key: "authorization_endpoint", value: .string(.authorizationEndpoint), limit: .option,
                      flag: .value("authorization-endpoint", placeholder: "URL"), help: "the provider's authorize endpoint (builder mode)",
                      doc: "the provider's authorize endpoint: `https`, or `http` on a loopback address (local providers); no userinfo, no fragment, none of the parameters the daemon sets in its query"),
        SessionOption(key: "client_id", value: .string(.clientID), limit: .option,
                      flag: .value("client-id", placeholder: "ID"), help: "your OAuth client_id",
                      doc: "printable ASCII"),
        SessionOption(key: "redirect_uri", value: .string(.redirectURI), limit: .option,
                      flag: .value("redirect-uri", placeholder: "URI"), help: "registered callback: com.example.app:/cb, https://…, or http://127.0.0.1/cb",
                      doc: "the registered callback, in one of the three styles below"),
        SessionOption(key: "scope", value: .string(.scope), limit: .option,
                      flag: .value("scope", placeholder: "SCOPE"), help: "space-separated scopes, e.g. \"openid profile\"",
                      doc: "space-separated scope tokens (RFC 6749 §3.3)"),
        SessionOption(key: "extra_params", value: .stringMap, limit: .none,
                      flag: .pairs("param"), help: "an extra authorize parameter",
                      doc: "more authorize parameters (`prompt`, `audience`…); may not set a parameter the daemon sets"),
        SessionOption(key: "authorize_url", value: .string(.authorizeURL), limit: .authorizeURL,
                      flag: .value("authorize-url", placeholder: "URL"), help: "adopt an authorize URL your backend built (instead of the four above)",
                      doc: "adopt mode (instead of the four above and `extra_params`)"),
        SessionOption(key: "app_callback_uri", value: .string(.appCallbackURI), limit: .option,
                      flag: .value("app-callback-uri", placeholder: "URI"), help: "Vipps/MobilePay app-to-app: where the app returns",
                      doc: "Vipps/MobilePay app-to-app: where the app returns (custom scheme or https)"),
        SessionOption(key: "resume", value: .string(.resume), limit: .option,
                      flag: .value("resume", placeholder: "MODE"), help: "who reopens resume_uri: browser (default), client or none",
                      doc: "who reopens `resume_uri`: `browser` (default: the daemon, in the browser that began the login), `client` (a `ResumeRequested` signal to the owner), `none`"),
        SessionOption(key: "resume_hosts", value: .strings, limit: .none,
                      flag: .repeated("resume-host", placeholder: "HOST"), help: "another host resume_uri may be on",
                      doc: "more hosts `resume_uri` may be on (lowercase names, default port)"),
        SessionOption(key: "resume_path_prefix", value: .string(.resumePathPrefix), limit: .option,
                      flag: .value("resume-path-prefix", placeholder: "PATH"), help: "resume_uri must be under this path",
                      doc: "`resume_uri`'s path must start with this (e.g. `/vipps-login-idp/`)"),
        SessionOption(key: "browser", value: .string(.browser), limit: .option,
                      flag: .value("browser", placeholder: "DESKTOP-ID"), help: "open the login in this browser, e.g. firefox.desktop",
                      doc: "a desktop file id (`firefox.desktop`); default: the user's default `x-scheme-handler/https` handler that is not linkrouter"),
        SessionOption(key: "open_browser", value: .bool(.openBrowser), limit: .none,
                      flag: .setsFalse("no-browser"), help: "do not open a browser; print the authorize URL only",
                      doc: "default true"),
        SessionOption(key: "ttl", value: .uint32, limit: .none,
                      flag: .value("ttl", placeholder: "SECONDS"), help: "how long the session may wait (default 600)",
                      doc: "seconds the session may wait, 1–3600, default 600"),
        SessionOption(key: "issuer", value: .string(.issuer), limit: .option,
                      flag: .value("issuer", placeholder: "URL"), help: "the provider's issuer: its metadata gives the endpoints; a callback's iss must equal it",
                      doc: "the provider's issuer identifier (https; http only on a loopback host, for a provider run locally). Without `authorization_endpoint`, the daemon fetches its metadata (OpenID Connect Discovery, then RFC 8414) and takes the endpoints from it; a callback's `iss` must equal it (RFC 9207), and must be present when the metadata says `authorization_response_iss_parameter_supported`"),
        SessionOption(key: "exchange", value: .bool(.exchange), limit: .none,
                      flag: .setsTrue("exchange"), help: "exchange the code for tokens and verify the ID token (needs --issuer)",
                      doc: "default false. With `issuer`: after the callback the daemon posts the code and its verifier to the token endpoint and `Wait` returns the tokens and the verified ID-token claims instead of the code (see \"Tokens\" below). Not with `authorize_url` or `code_challenge`, where the daemon holds no verifier"),
        SessionOption(key: "require_iss", value: .bool(.requireIssuer), limit: .none,
                      flag: .setsTrue("require-iss"), help: "fail a callback that carries no iss",
                      doc: "with `issuer`: a callback without `iss` fails too (for providers whose metadata says `authorization_response_iss_parameter_supported`)"),
        SessionOption(key: "code_challenge", value: .string(.codeChallenge), limit: .option,
                      flag: .value("code-challenge", placeholder: "S256"), help: "keep your own PKCE verifier; send only its S256 challenge",
                      doc: "client-held PKCE: the 43-character S256 challenge of a verifier the daemon never sees (recommended for apps that can keep a secret in memory: an intercepted code is then useless)"),
        SessionOption(key: "claim_token", value: .string(.claimToken), limit: .bytes(256),
                      flag: .value("claim-token", placeholder: "TOKEN"), help: "a secret (22+ characters) that lets another process claim the session",
                      doc: "a secret of the client's (≥ 22 printable characters; use 32 random bytes); lets a restarted client `Claim` the session"),
    ]

    /// The option with this D-Bus key.
    public static func named(_ key: String) -> SessionOption? { all.first { $0.key == key } }
}
