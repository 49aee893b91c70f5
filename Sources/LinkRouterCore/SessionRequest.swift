/// `BeginSession`'s options after the D-Bus adapter has checked their types.
/// Field names follow the option keys in docs/dbus-api.md.
public struct SessionRequest: Sendable, Equatable {
    public var authorizationEndpoint: String?
    public var clientID: String?
    public var redirectURI: String?
    public var scope: String?
    public var extraParams: [String: String] = [:]
    public var openBrowser: Bool = true
    public var browser: String?
    public var ttl: UInt32?
    /// Adopt mode: an authorize URL the app's backend built.
    public var authorizeURL: String?
    public var appCallbackURI: String?
    public var resume: String?
    public var resumeHosts: [String] = []
    public var resumePathPrefix: String?
    public var claimToken: String?
    /// Client-held PKCE: the S256 challenge of a verifier the daemon never sees.
    public var codeChallenge: String?
    public var issuer: String?
    public var requireIssuer: Bool = false
    /// Exchange the code for tokens and verify the ID token (needs `issuer`).
    public var exchange: Bool = false
    /// The issuer's metadata, once the daemon fetched it (`SessionPlan.needsDiscovery`); not an option.
    public var discovered: ProviderMetadata?

    public init() {}
}

extension SessionRequest {
    /// The string options, by name (the option table sets them through this:
    /// key paths would cost linkctl ~0.6 M instructions to instantiate at start).
    public enum Text: Sendable {
        case authorizationEndpoint, clientID, redirectURI, scope, authorizeURL, appCallbackURI, resume, resumePathPrefix
        case browser, issuer, codeChallenge, claimToken
    }

    /// The boolean options.
    public enum Flag: Sendable { case openBrowser, requireIssuer, exchange }

    public subscript(text text: Text) -> String? {
        get {
            switch text {
            case .authorizationEndpoint: return authorizationEndpoint
            case .clientID: return clientID
            case .redirectURI: return redirectURI
            case .scope: return scope
            case .authorizeURL: return authorizeURL
            case .appCallbackURI: return appCallbackURI
            case .resume: return resume
            case .resumePathPrefix: return resumePathPrefix
            case .browser: return browser
            case .issuer: return issuer
            case .codeChallenge: return codeChallenge
            case .claimToken: return claimToken
            }
        }
        set {
            switch text {
            case .authorizationEndpoint: authorizationEndpoint = newValue
            case .clientID: clientID = newValue
            case .redirectURI: redirectURI = newValue
            case .scope: scope = newValue
            case .authorizeURL: authorizeURL = newValue
            case .appCallbackURI: appCallbackURI = newValue
            case .resume: resume = newValue
            case .resumePathPrefix: resumePathPrefix = newValue
            case .browser: browser = newValue
            case .issuer: issuer = newValue
            case .codeChallenge: codeChallenge = newValue
            case .claimToken: claimToken = newValue
            }
        }
    }

    public subscript(flag flag: Flag) -> Bool {
        get {
            switch flag {
            case .openBrowser: return openBrowser
            case .requireIssuer: return requireIssuer
            case .exchange: return exchange
            }
        }
        set {
            switch flag {
            case .openBrowser: openBrowser = newValue
            case .requireIssuer: requireIssuer = newValue
            case .exchange: exchange = newValue
            }
        }
    }
}
