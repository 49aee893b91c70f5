/// A login linkrouter keeps: a provider, a client, what to ask for, and
/// where its tokens live. Declared by the user (a key file under
/// `$XDG_CONFIG_HOME/linkrouter/accounts/`, written by `linkctl account add`),
/// by an administrator (`/etc/linkrouter/accounts.d/`) or by a sandboxed app
/// over D-Bus (`AddAccount`), checked here whichever way it came, so a file
/// edited by hand meets the same rules.
public struct Account: Sendable, Equatable {
    public enum TokenKind: String, Sendable { case access, id }
    public enum Storage: String, Sendable { case keyring, memory }
    /// Who declared it, and so who may use it: the host user's programs use
    /// the user's and the administrator's; an app only its own.
    public enum Owner: Sendable, Equatable, Hashable {
        case user, system
        /// A sandboxed app, by its `CallerApp.label` (`flatpak:ID`, `snap:NAME`).
        case app(String)

        /// The owner of what a caller declares (`AddAccount`); nil: a caller that could not be identified declares
        /// nothing.
        public init?(declaring caller: CallerApp) {
            switch caller {
            case .host: self = .user
            case .flatpak(let id), .snap(let id):
                // The id names the app's directory of accounts: a word, never a path.
                guard Self.isAppID(id) else { return nil }
                self = .app(caller.label)
            case .unknown, .remote: return nil
            }
        }

        /// Whether a caller may use an account of this owner.
        public func serves(_ caller: CallerApp) -> Bool {
            switch self {
            case .user, .system: return caller == .host
            case .app(let label): return caller != .host && caller != .unknown && caller.label == label
            }
        }

        /// A Flatpak id or Snap name: letters, digits, `.`, `_`, `-`, beginning with a letter or digit, at most 255.
        static func isAppID(_ id: String) -> Bool {
            let bytes = Array(id.utf8)
            guard (1...255).contains(bytes.count), ASCII.isAlpha(bytes[0]) || ASCII.isDigit(bytes[0]) else {
                return false
            }
            return bytes.allSatisfy { ASCII.isAlpha($0) || ASCII.isDigit($0) || $0 == 0x2E || $0 == 0x5F || $0 == 0x2D }
        }

        /// `user`, `system`, or the app's label.
        public var label: String {
            switch self {
            case .user: return "user"
            case .system: return "system"
            case .app(let label): return label
            }
        }
    }

    public let name: String
    public let issuer: String
    public let clientID: String
    public let scope: String
    public let redirectURI: String
    public let audience: String?
    public let resource: String?
    public let extraParams: [String: String]
    /// Whether its logins push their authorization request first (RFC 9126).
    public let par: PushedAuthorization.Mode
    /// Whether its tokens are bound to a key the daemon holds (RFC 9449 DPoP).
    public let dpop: DPoPBinding.Mode
    /// The device authorization endpoint, when the provider's metadata does not list it.
    public let deviceAuthorizationEndpoint: String?
    /// The revocation endpoint, when the provider's metadata does not list it.
    public let revocationEndpoint: String?
    public let token: TokenKind
    public let store: Storage
    public let minValidSeconds: Int64
    /// When its tokens are refreshed (`BackgroundRefresh`).
    public let refresh: RefreshMode
    /// Where a set the keyring has not taken goes when the daemon stops (`StopDrain`).
    public internal(set) var unsaved = UnsavedPolicy.runtime
    /// The one a caller gets among several of its accounts at this issuer when it asks by issuer (`GetToken` with an
    /// empty name and `issuer`; `linkctl token --issuer URL`).
    public private(set) var isDefault: Bool
    public let username: String
    public let registries: [String]
    /// URL prefixes (`https://host[:port]/path/`), scheme and host lowercased, ending in `/`.
    public let gitURLs: [String]
    public let owner: Owner

    public static let defaultScope = "openid"
    public static let defaultRedirectURI = "http://127.0.0.1/callback"
    public static let defaultMinValid: UInt32 = 60

    /// When an account's tokens are refreshed.
    public enum RefreshMode: String, Sendable, CaseIterable {
        /// In the background, before `min_valid` runs out: callers are answered from memory (`BackgroundRefresh`).
        case ahead
        /// Only when a caller needs a token with more life than the one kept.
        case onDemand = "on-demand"
    }

    /// Where new tokens the keyring could not take go when the daemon stops: a trade between keeping a sign-in and
    /// keeping tokens only in the keyring (docs/accounts.md).
    public enum UnsavedPolicy: String, Sendable, CaseIterable {
        /// Set aside in the runtime directory (memory-backed, 0600, gone at reboot), written to the keyring by the
        /// next daemon, then deleted (`SetAside`).
        case runtime
        /// Never outside the keyring: lost with the daemon.
        case drop
    }

    /// What the keyring item and the daemon's memory are keyed by.
    public var key: AccountKey {
        if case .app(let label) = owner { return AccountKey(name: name, issuer: issuer, app: label) }
        return AccountKey(name: name, issuer: issuer)
    }

    /// The request checked: a clear refusal for the first thing wrong.
    public static func make(name: String, _ r: AccountRequest, owner: Owner, limits: Limits = Limits())
        throws(RouterError) -> Account
    {
        try checkName(name)
        guard r.forResource == nil else {
            throw .invalid(
                "for is read by the daemon as it declares the account (AddAccount); a file names issuer and resource")
        }
        guard let issuer = r.issuer else {
            throw .invalid("issuer is missing: the OpenID provider's issuer URL (its discovery gives the endpoints)")
        }
        guard let clientID = r.clientID else {
            throw .invalid("client_id is missing: the public client registered for this account at the provider")
        }
        try AccountRequest.options.checkLengths(r, limits: limits)
        _ = try SessionPlan.checkIssuer(issuer, maxLength: limits.maxOptionBytes)
        guard OAuthText.isVisibleText(clientID) else {
            throw .invalid("client_id must be printable ASCII (RFC 6749 Appendix A)")
        }
        // An initial access token is spent on a registration, which only an account without a client asks for.
        guard r.registrationToken == nil else {
            throw .invalid("registration_token goes with a client linkrouter registers: leave out client_id")
        }
        let scope = r.scope ?? defaultScope
        guard OAuthText.isScope(scope) else {
            throw .invalid("scope must be space-separated tokens of printable ASCII (RFC 6749 §3.3)")
        }
        let redirect = r.redirectURI ?? defaultRedirectURI
        _ = try CallbackURI.parse(redirect, role: "redirect_uri", maxLength: limits.maxOptionBytes)
        for (k, v) in r.extraParams {
            guard !AuthorizeURL.reservedParameters.contains(k) else {
                throw .invalid("extra_params may not set \(k): linkrouter sets it")
            }
            guard OAuthText.isVisibleText(k), OAuthText.isVisibleText(v) || v.isEmpty else {
                throw .invalid("extra_params \(k) must be printable ASCII")
            }
        }
        for v in [r.audience, r.resource].compactMap({ $0 }) where !OAuthText.isVisibleText(v) {
            throw .invalid("audience and resource must be printable ASCII")
        }
        let par = try PushedAuthorization.Mode(option: r.par, name: "par")
        let dpop = try DPoPBinding.Mode(option: r.dpop, name: "dpop")
        for (key, value) in [
            ("device_authorization_endpoint", r.deviceAuthorizationEndpoint),
            ("revocation_endpoint", r.revocationEndpoint),
        ] {
            guard let value else { continue }
            guard SessionPlan.isEndpoint(value, maxLength: limits.maxOptionBytes) else {
                throw .invalid(
                    "\(key) must be an https URL (http only on a loopback host) without fragment or userinfo")
            }
            // As for metadata: an https issuer's endpoints are https (an app's account must not aim the daemon's POSTs
            // at the host's loopback services).
            if (try? URIReference.split(issuer))?.normalizedScheme == "https",
                (try? URIReference.split(value))?.normalizedScheme != "https"
            {
                throw .invalid("\(key) must be https when the issuer is https")
            }
        }
        guard let token = TokenKind(rawValue: r.token ?? "access") else {
            throw .invalid("token must be access or id, not \(r.token ?? "")")
        }
        guard let store = Storage(rawValue: r.store ?? "keyring") else {
            throw .invalid("store must be keyring or memory, not \(r.store ?? "")")
        }
        let minValid = r.minValid ?? defaultMinValid
        guard minValid <= 3600 else { throw .invalid("min_valid is at most 3600 seconds, not \(minValid)") }
        guard let refresh = RefreshMode(rawValue: r.refresh ?? RefreshMode.ahead.rawValue) else {
            throw .invalid("refresh must be ahead or on-demand, not \(r.refresh ?? "")")
        }
        guard let unsaved = UnsavedPolicy(rawValue: r.unsaved ?? UnsavedPolicy.runtime.rawValue) else {
            throw .invalid("unsaved must be runtime or drop, not \(r.unsaved ?? "")")
        }
        let username = r.username ?? TokenUsername.fallback
        guard OAuthText.isVisibleText(username), !username.contains(":") else {
            throw .invalid("username must be printable ASCII with no ':'")
        }
        for entry in r.registries {
            // `host` or `host:port`, as docker names a registry.
            let parts = ASCII.lowercased(entry).split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                .map(String.init)
            let portOK =
                parts.count == 1
                || (!parts[1].isEmpty && parts[1].utf8.count <= 5 && parts[1].utf8.allSatisfy(ASCII.isDigit))
            guard OAuthText.isHostName(parts[0]), portOK else {
                throw .invalid("registries takes host names (with a port, if any), not \(entry)")
            }
        }
        let gitURLs = try r.gitURLs.map { (entry: String) throws(RouterError) -> String in try Self.gitURL(entry) }
        var account = Account(
            name: name, issuer: issuer, clientID: clientID, scope: scope, redirectURI: redirect, audience: r.audience,
            resource: r.resource,
            extraParams: r.extraParams, par: par, dpop: dpop,
            deviceAuthorizationEndpoint: r.deviceAuthorizationEndpoint, revocationEndpoint: r.revocationEndpoint,
            token: token, store: store,
            minValidSeconds: Int64(minValid), refresh: refresh, isDefault: r.isDefault ?? false, username: username,
            registries: r.registries.map { ASCII.lowercased($0) }, gitURLs: gitURLs, owner: owner)
        account.confirm = r.confirm ?? false
        account.unsaved = unsaved
        if let name = r.clientName {
            guard OAuthText.isVisibleText(name) else { throw .invalid("client_name must be printable ASCII") }
            account.clientName = name
        }
        if let registered = r.registered {
            guard let kind = Registered(rawValue: registered) else {
                throw .invalid("registered must be managed or unmanaged, not \(registered)")
            }
            account.registered = kind
        }
        return account
    }

    /// The same account, no longer its issuer's default (another was made it: one default per issuer).
    public func notDefault() -> Account {
        var a = self
        a.isDefault = false
        return a
    }

    /// One default per issuer: when this account is declared the default, the others of its owner at its issuer that
    /// were, declared again without it (`AddAccount` among an app's own, `linkctl account add` among the user's).
    public func defaultsItClears(among accounts: [Account]) -> [Account] {
        guard isDefault else { return [] }
        return accounts.filter { $0.owner == owner && $0.name != name && $0.issuer == issuer && $0.isDefault }
            .map { $0.notDefault() }
    }

    /// A `git_urls` entry in its one form: https (http only on a loopback
    /// host, as git's own servers in tests), no query, fragment or userinfo,
    /// scheme and host lowercased, the path ending in `/`.
    static func gitURL(_ entry: String) throws(RouterError) -> String {
        // No `;` (the key file's list separator) and no `.`/`..` segment (a path that climbs out of a prefix must not
        // match it).
        guard let uri = try? URIReference.strict(entry, maxLength: 2048), let authority = uri.authority,
            SessionPlan.isIssuerScheme(uri),
            uri.query == nil, uri.fragment == nil, !uri.hasUserinfo, !entry.contains(";"),
            !uri.path.split(separator: "/", omittingEmptySubsequences: false).contains(where: { segment in
                // `%2e` is the `.` it stands for (RFC 3986 §2.3: the same segment either way).
                let dots = ASCII.lowercased(String(segment)).replacing("%2e", with: ".")
                return dots == "." || dots == ".."
            })
        else {
            throw .invalid(
                "git_urls takes https URLs (a host, or a path under it) with no query, fragment, ';' or dot segment, not \(entry)"
            )
        }
        var path = uri.path.isEmpty ? "/" : uri.path
        if !path.hasSuffix("/") { path += "/" }
        return uri.normalizedScheme + "://" + ASCII.lowercased(authority) + path
    }

    /// How well an account with `git_urls` `prefixes` answers git's request for `url`
    /// (`protocol://host/path`, the path only when git sends it): the length of
    /// the longest prefix of it, or nil. Scheme and host compare lowercased.
    public static func gitMatch(_ prefixes: [String], _ url: String) -> Int? {
        guard let target = try? gitURL(url) else { return nil }
        return prefixes.filter { target.hasPrefix($0) }.map(\.utf8.count).max()
    }

    /// `[A-Za-z0-9][A-Za-z0-9._-]*`, at most 64: a file name, a keyring attribute, a word on a command line.
    public static func checkName(_ name: String) throws(RouterError) { try AccountName.check(name) }

    /// The key file's lines, in the option table's order: what `linkctl
    /// account add` writes and `AccountRequest` reads back (a test keeps them equal).
    public var fileEntries: [(key: String, value: String)] {
        var out: [(String, String)] = [
            ("issuer", issuer), ("client_id", clientID),
        ]
        if let clientName { out.append(("client_name", clientName)) }
        if let registered { out.append(("registered", registered.rawValue)) }
        out += [("scope", scope), ("redirect_uri", redirectURI)]
        if let audience { out.append(("audience", audience)) }
        if let resource { out.append(("resource", resource)) }
        if !extraParams.isEmpty {
            out.append(
                (
                    "extra_params",
                    extraParams.sorted { $0.key < $1.key }.map { $0.key + "=" + $0.value }.joined(separator: ";")
                ))
        }
        if par != .auto { out.append(("par", par.rawValue)) }
        if dpop != .auto { out.append(("dpop", dpop.rawValue)) }
        if let e = deviceAuthorizationEndpoint { out.append(("device_authorization_endpoint", e)) }
        if let e = revocationEndpoint { out.append(("revocation_endpoint", e)) }
        out.append(("token", token.rawValue))
        out.append(("store", store.rawValue))
        out.append(("min_valid", String(minValidSeconds)))
        if refresh != .ahead { out.append(("refresh", refresh.rawValue)) }
        if unsaved != .runtime { out.append(("unsaved", unsaved.rawValue)) }
        if isDefault { out.append(("default", "true")) }
        if confirm { out.append(("confirm", "true")) }
        out.append(("username", username))
        if !registries.isEmpty { out.append(("registries", registries.joined(separator: ";"))) }
        if !gitURLs.isEmpty { out.append(("git_urls", gitURLs.joined(separator: ";"))) }
        return out
    }

    /// Whether a host program's token of it waits on the person's yes, each time (`ConsentPrompt`).
    public internal(set) var confirm = false

    /// The name its client was registered under, where linkrouter registered it (`ClientRegistration`).
    public internal(set) var clientName: String?
    /// Whether linkrouter registered its client (RFC 7591), and whether it can delete it again (RFC 7592).
    public internal(set) var registered: Registered?

    /// A client linkrouter registered itself: `managed` when the provider gave the means to delete it (kept in the
    /// keyring; `RemoveAccount` deletes the client), `unmanaged` when it did not (the client stays at the provider).
    public enum Registered: String, Sendable, CaseIterable {
        case managed, unmanaged
    }

    /// The apps the person has always allowed to use it (`AccountGrant`), attached by the daemon from its grants
    /// file; never part of the declaration's file.
    public var grants: [AccountGrant] = []

    private init(
        name: String, issuer: String, clientID: String, scope: String, redirectURI: String, audience: String?,
        resource: String?,
        extraParams: [String: String], par: PushedAuthorization.Mode, dpop: DPoPBinding.Mode,
        deviceAuthorizationEndpoint: String?, revocationEndpoint: String?, token: TokenKind, store: Storage,
        minValidSeconds: Int64, refresh: RefreshMode, isDefault: Bool,
        username: String,
        registries: [String], gitURLs: [String], owner: Owner
    ) {
        self.refresh = refresh
        self.isDefault = isDefault
        self.par = par
        self.dpop = dpop
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.name = name
        self.issuer = issuer
        self.clientID = clientID
        self.scope = scope
        self.redirectURI = redirectURI
        self.audience = audience
        self.resource = resource
        self.extraParams = extraParams
        self.token = token
        self.store = store
        self.minValidSeconds = minValidSeconds
        self.username = username
        self.registries = registries
        self.gitURLs = gitURLs
        self.owner = owner
    }
}

/// An account as the keyring and the daemon's memory know it: its name at
/// its issuer, and for an app's account the app, so an app's `work` and the
/// user's `work` never share tokens.
public struct AccountKey: Sendable, Hashable, CustomStringConvertible {
    public let name: String
    public let issuer: String
    /// The owning app's label; nil for the host user's accounts.
    public let app: String?
    public init(name: String, issuer: String, app: String? = nil) {
        self.name = name
        self.issuer = issuer
        self.app = app
    }

    /// The keyring item's `account` attribute and a login's stored account:
    /// the name, or `APP/NAME` for an app's (a name has no `/` or `:`, so the two never meet).
    public var qualifiedName: String { app.map { $0 + "/" + name } ?? name }

    /// The key of a `qualifiedName` at `issuer`.
    public init(qualifiedName: String, issuer: String) {
        if let slash = qualifiedName.lastIndex(of: "/") {
            self.init(
                name: String(qualifiedName[qualifiedName.index(after: slash)...]), issuer: issuer,
                app: String(qualifiedName[..<slash]))
        } else {
            self.init(name: qualifiedName, issuer: issuer)
        }
    }

    public var description: String { name }
}

extension OptionTable {
    /// Sets the option `key` from its text in a key file: strings as they
    /// are, booleans `true`/`false`, numbers in decimal, lists and maps
    /// `;`-separated (maps as `NAME=VALUE`).
    public func set(_ request: inout Request, key: String, text: String) throws(RouterError) {
        guard let row = named(key) else {
            throw .invalid("unknown key \(key); the keys are \(keys.joined(separator: ", "))")
        }
        func items() -> [String] { text.split(separator: ";", omittingEmptySubsequences: true).map(String.init) }
        switch row.field {
        case .string(let set, _): set(&request, text)
        case .bool(let set, _):
            guard text == "true" || text == "false" else { throw .invalid("\(key) is true or false, not \(text)") }
            set(&request, text == "true")
        case .uint32(let set, _):
            guard let n = UInt32(text) else { throw .invalid("\(key) is a number, not \(text)") }
            set(&request, n)
        case .strings(let set, _): set(&request, items())
        case .stringMap(let set):
            var map: [String: String] = [:]
            for item in items() {
                guard let eq = item.firstIndex(of: "="), eq != item.startIndex else {
                    throw .invalid("\(key) takes NAME=VALUE;…, not \(item)")
                }
                let name = String(item[..<eq])
                guard map[name] == nil else { throw .invalid("\(key) names \(name) twice") }
                map[name] = String(item[item.index(after: eq)...])
            }
            set(&request, map)
        }
    }
}
