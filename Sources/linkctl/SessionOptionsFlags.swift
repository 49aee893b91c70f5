import DBusKit
import LinkRouterCore
import SystemKit

/// The command-line flags of `begin` and `login`, and their `BeginSession` options.
enum SessionOptionsFlags {
    static let options: [CommandSpec.Option] = [
        .value("authorization-endpoint", "URL", "the provider's authorize endpoint (builder mode)"),
        .value("client-id", "ID", "your OAuth client_id"),
        .value("redirect-uri", "URI", "registered callback: com.example.app:/cb, https://…, or http://127.0.0.1/cb"),
        .value("scope", "SCOPE", "space-separated scopes, e.g. \"openid profile\""),
        .value("param", "NAME=VALUE", "an extra authorize parameter", repeatable: true),
        .value("authorize-url", "URL", "adopt an authorize URL your backend built (instead of the four above)"),
        .value("app-callback-uri", "URI", "Vipps/MobilePay app-to-app: where the app returns"),
        .value("resume", "MODE", "who reopens resume_uri: browser (default), client or none"),
        .value("resume-host", "HOST", "another host resume_uri may be on", repeatable: true),
        .value("resume-path-prefix", "PATH", "resume_uri must be under this path"),
        .value("browser", "DESKTOP-ID", "open the login in this browser, e.g. firefox.desktop"),
        .flag("no-browser", "do not open a browser; print the authorize URL only"),
        .value("ttl", "SECONDS", "how long the session may wait (default 600)"),
        .value("issuer", "URL", "the provider's issuer: a callback's iss must equal it (RFC 9207)"),
        .flag("require-iss", "fail a callback that carries no iss"),
        .value("code-challenge", "S256", "keep your own PKCE verifier; send only its S256 challenge"),
        .value("claim-token", "TOKEN", "a secret (22+ characters) that lets another process claim the session"),
    ]

    /// The `a{sv}` for `BeginSession`.
    static func dictionary(_ args: ParsedArguments, claimToken: String?) throws(UsageError) -> DBusValue {
        var entries: [(String, DBusValue)] = []
        let strings: [(String, String)] = [
            ("authorization-endpoint", "authorization_endpoint"), ("client-id", "client_id"), ("redirect-uri", "redirect_uri"),
            ("scope", "scope"), ("authorize-url", "authorize_url"), ("app-callback-uri", "app_callback_uri"),
            ("resume", "resume"), ("resume-path-prefix", "resume_path_prefix"), ("browser", "browser"),
            ("issuer", "issuer"), ("code-challenge", "code_challenge"),
        ]
        for (flag, key) in strings { if let v = args.value(flag) { entries.append((key, .string(v))) } }
        if let t = claimToken { entries.append(("claim_token", .string(t))) }
        var params: [(String, String)] = []
        for p in args.all("param") {
            guard let eq = p.firstIndex(of: "="), eq != p.startIndex else { throw UsageError(message: "--param takes NAME=VALUE, not \(p)") }
            params.append((String(p[..<eq]), String(p[p.index(after: eq)...])))
        }
        if !params.isEmpty { entries.append(("extra_params", .stringDict(params))) }
        let hosts = args.all("resume-host")
        if !hosts.isEmpty { entries.append(("resume_hosts", .stringArray(hosts))) }
        if args.has("no-browser") { entries.append(("open_browser", .boolean(false))) }
        if args.has("require-iss") { entries.append(("require_iss", .boolean(true))) }
        if let t = args.value("ttl") {
            guard let n = UInt32(t) else { throw UsageError(message: "--ttl takes a number of seconds, not \(t)") }
            entries.append(("ttl", .uint32(n)))
        }
        return .vardict(entries)
    }

    /// 32 random bytes from the kernel, base64url: a claim token for `begin`.
    static func randomToken() -> String {
        Base64URL.encode(SecureRandom.bytes(32))
    }
}
