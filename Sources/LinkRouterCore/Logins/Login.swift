/// What kind of login a session is, each kind a type of its own with what it
/// must remember, how it takes its events and how the store keeps it. The
/// header (`Session`) is the same for all. A new kind is its type, a case
/// here (with its stored name), and the method that begins it.
public indirect enum Login: Sendable, Equatable {
    /// The authorization code flow: a browser, a callback, a state (`CodeLogin`).
    case code(CodeLogin)
    /// The device authorization grant (RFC 8628): a code the person enters elsewhere, and polls (`DeviceLogin`).
    case device(DeviceLogin)
    /// A sign-out at the provider: a browser that comes back with a state and nothing else (`ProviderSignOut`).
    case signOut(ProviderSignOut)

    /// The name the store keeps with the value, and the session's `Flow` property.
    public var kind: String {
        switch self {
        case .code: "code"
        case .device: "device"
        case .signOut: "signout"
        }
    }

    // MARK: What the table indexes and the bus shows (read in place: a copy of a login retains every field)

    /// The state a browser comes back with (a code login, a sign-out); nil for a device login.
    public var state: String? {
        _read {
            switch self {
            case .code(let c): yield c.state
            case .signOut(let s): yield s.state
            case .device: yield nil
            }
        }
    }

    /// Where the browser comes back to (`redirect_uri`, `post_logout_redirect_uri`).
    public var redirect: CallbackURI? {
        _read {
            switch self {
            case .code(let c): yield c.redirect
            case .signOut(let s): yield s.redirect
            case .device: yield nil
            }
        }
    }

    /// Where the Vipps/MobilePay app comes back to, for a code login that named one.
    public var appCallback: CallbackURI? {
        _read {
            switch self {
            case .code(let c): yield c.appCallback
            case .signOut, .device: yield nil
            }
        }
    }

    /// The app a code login's loopback page offers the way back to (`ReturnLink`), when its caller named one.
    public var returnTo: String? {
        switch self {
        case .code(let c): c.options.returnTo
        case .signOut, .device: nil
        }
    }

    /// The browser that opened the login, when one did.
    public var browser: String? {
        _read {
            switch self {
            case .code(let c): yield c.browser
            case .signOut(let s): yield s.browser
            case .device: yield nil
            }
        }
    }

    /// The token exchange the login ends with, if it has one (a device login's always has).
    public var exchange: TokenExchange? {
        _read {
            switch self {
            case .code(let c): yield c.exchange
            case .device(let d): yield d.exchange
            case .signOut: yield nil
            }
        }
    }

    /// The issuer the login is with, when known.
    public var issuer: String? {
        _read {
            switch self {
            case .code(let c): yield c.issuer
            case .device(let d): yield d.issuer
            case .signOut(let s): yield s.issuer
            }
        }
    }

    /// A device login's part, for the bus's answer to `BeginDeviceLogin` and its polls.
    public var device: DeviceLogin? {
        if case .device(let d) = self { return d }
        return nil
    }

    /// The login with its secrets gone (a code verifier, a device code, a DPoP key): the session ended.
    /// Nothing is copied when there is nothing to wipe (a restore or an owner leaving wipes thousands).
    func withoutSecrets() -> Login {
        switch self {
        case .code(var c):
            guard c.holdsSecrets else { return self }
            c.forgetSecrets()
            return .code(c)
        case .device(var d):
            guard d.holdsSecrets else { return self }
            d.forgetSecrets()
            return .device(d)
        case .signOut:
            return self
        }
    }

    // MARK: Shared strings (`Interner`)

    /// The login's callbacks and repeated strings replaced by the table's one copy of each.
    /// Every use is counted; the login is copied only when one of its values is not already the
    /// shared one (the rows a restore reads share their values already, `StoredReuse`), and
    /// read in place until then: a copy of each of 10,000 restored logins was 6 M instructions.
    mutating func share(_ interner: inout Interner) {
        guard let redirect else { return }  // A device login has nothing the table shares.
        let sharedRedirect = interner.share(redirect)
        let app = appCallback.map { interner.share($0) }
        let origin = authorizationOrigin.map { interner.share($0) }
        let hosts = resumeHosts.isEmpty ? [] : resumeHosts.map { interner.share($0) }
        let issuer = issuer.map { interner.share($0) }
        guard
            sharedRedirect !== redirect || app !== appCallback || !Interner.same(origin, authorizationOrigin)
                || !zip(hosts, resumeHosts).allSatisfy(Interner.same) || !Interner.same(issuer, self.issuer)
        else { return }
        switch self {
        case .code(var c):
            c.redirect = sharedRedirect
            c.appCallback = app
            if let origin { c.authorizationOrigin = origin }
            c.options.resumeHosts = hosts
            c.issuer = issuer
            self = .code(c)
        case .signOut(var s):
            s.redirect = sharedRedirect
            if let issuer { s.issuer = issuer }
            self = .signOut(s)
        case .device:
            break
        }
    }

    /// What `share` counted, given back (the session left the table).
    func release(_ interner: inout Interner) {
        guard let redirect else { return }
        interner.release(redirect)
        if let a = appCallback { interner.release(a) }
        if let o = authorizationOrigin { interner.release(o) }
        for h in resumeHosts { interner.release(h) }
        if let i = issuer { interner.release(i) }
    }

    /// A code login's authorization endpoint origin (shared, `share`).
    private var authorizationOrigin: String? {
        _read {
            switch self {
            case .code(let c): yield c.authorizationOrigin
            case .signOut, .device: yield nil
            }
        }
    }

    /// A code login's extra resume hosts (shared, `share`).
    private var resumeHosts: [String] {
        _read {
            switch self {
            case .code(let c): yield c.options.resumeHosts
            case .signOut, .device: yield[]
            }
        }
    }
}

// MARK: The stored form

extension Login {
    /// The store's value (`StoredForm`).
    public var stored: String {
        switch self {
        case .code(let c): c.stored
        case .device(let d): d.stored
        case .signOut(let s): s.stored
        }
    }

    /// Reads a stored login of `kind`; nil when it is unreadable. The values rows
    /// share (callbacks, origins, issuers) are taken from the row before when
    /// their bytes are the same (`reuse`), neither allocated nor parsed again.
    public init?(kind: String, bytes: UnsafeBufferPointer<UInt8>, reuse: inout StoredReuse) {
        switch kind {
        case "code":
            if let c = Self.read(CodeLogin.self, kind, bytes, &reuse) {
                self = .code(c)
                return
            }
            // A previous version kept a sign-out as a code login of source `logout` (which a code login refuses).
            let legacySignOut = StoredReader.reading(bytes, CodeLogin.layout) {
                $0.text(CodeLogin.Key.source.rawValue) == "logout"
            }
            guard legacySignOut == true, let s = Self.read(ProviderSignOut.self, "signout", bytes, &reuse) else {
                return nil
            }
            self = .signOut(s)
        case "device":
            guard let d = Self.read(DeviceLogin.self, kind, bytes, &reuse) else { return nil }
            self = .device(d)
        case "signout":
            guard let s = Self.read(ProviderSignOut.self, kind, bytes, &reuse) else { return nil }
            self = .signOut(s)
        default:
            return nil
        }
    }

    private static func read<L: StoredLogin>(
        _: L.Type, _ kind: String, _ bytes: UnsafeBufferPointer<UInt8>, _ reuse: inout StoredReuse
    ) -> L? {
        reuse.start(kind, count: L.layout.count)
        return StoredReader.reading(bytes, L.layout) { r in try? L(r, &reuse) }
    }

    /// The same from a string (tests, a single row).
    public init?(kind: String, stored: String, parse: @escaping (String, String) -> CallbackURI?) {
        var text = stored
        var reuse = StoredReuse(parse: parse)
        guard let login = text.withUTF8({ Login(kind: kind, bytes: $0, reuse: &reuse) }) else { return nil }
        self = login
    }
}
