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

    /// The browser that opened the login, when one did.
    public var browser: String? {
        switch self {
        case .code(let c): c.browser
        case .signOut(let s): s.browser
        case .device: nil
        }
    }

    /// The token exchange the login ends with, if it has one (a device login's always has).
    public var exchange: TokenExchange? {
        switch self {
        case .code(let c): c.exchange
        case .device(let d): d.exchange
        case .signOut: nil
        }
    }

    /// The issuer the login is with, when known.
    public var issuer: String? {
        switch self {
        case .code(let c): c.issuer
        case .device(let d): d.issuer
        case .signOut(let s): s.issuer
        }
    }

    /// A device login's part, for the bus's answer to `BeginDeviceLogin` and its polls.
    public var device: DeviceLogin? {
        if case .device(let d) = self { return d }
        return nil
    }

    /// The login with its secrets gone (a code verifier, a device code, a DPoP key): the session ended.
    func withoutSecrets() -> Login {
        switch self {
        case .code(let c): .code(c.withoutSecrets())
        case .device(let d): .device(d.withoutSecrets())
        case .signOut: self
        }
    }

    // MARK: Shared strings (`Interner`)

    /// The login's callbacks and repeated strings replaced by the table's one copy of each.
    mutating func share(_ interner: inout Interner) {
        switch consume self {
        case .code(var c):
            c.redirect = interner.share(c.redirect)
            if let a = c.appCallback { c.appCallback = interner.share(a) }
            c.authorizationOrigin = interner.share(c.authorizationOrigin)
            if !c.options.resumeHosts.isEmpty {
                c.options.resumeHosts = c.options.resumeHosts.map { interner.share($0) }
            }
            if let i = c.issuer { c.issuer = interner.share(i) }
            self = .code(c)
        case .signOut(var s):
            s.redirect = interner.share(s.redirect)
            s.issuer = interner.share(s.issuer)
            self = .signOut(s)
        case .device(let d):
            self = .device(d)
        }
    }

    /// What `share` counted, given back (the session left the table).
    func release(_ interner: inout Interner) {
        switch self {
        case .code(let c):
            interner.release(c.redirect)
            if let a = c.appCallback { interner.release(a) }
            interner.release(c.authorizationOrigin)
            for h in c.options.resumeHosts { interner.release(h) }
            if let i = c.issuer { interner.release(i) }
        case .signOut(let s):
            interner.release(s.redirect)
            interner.release(s.issuer)
        case .device:
            break
        }
    }
}

// MARK: The stored form

extension Login {
    /// The store's value (`StoredForm`).
    public var stored: String {
        switch self {
        case .code(let c): StoredWriter.write(CodeLogin.layout) { c.write(&$0) }
        case .device(let d): StoredWriter.write(DeviceLogin.layout) { d.write(&$0) }
        case .signOut(let s): StoredWriter.write(ProviderSignOut.layout) { s.write(&$0) }
        }
    }

    /// Reads a stored login of `kind`; nil when it is unreadable. The values rows
    /// share (callbacks, origins, issuers) are taken from the row before when
    /// their bytes are the same (`reuse`), neither allocated nor parsed again.
    public init?(kind: String, bytes: UnsafeBufferPointer<UInt8>, reuse: inout StoredReuse) {
        do throws(StoredDamage) {
            switch kind {
            case "code":
                guard let r = StoredReader(bytes, CodeLogin.layout) else { return nil }
                // A previous version kept a sign-out as a code login of source `logout`.
                if r.text(CodeLogin.Key.source.rawValue) == "logout" {
                    guard let s = StoredReader(bytes, ProviderSignOut.layout) else { return nil }
                    reuse.start("signout", count: ProviderSignOut.layout.names.count)
                    self = .signOut(try ProviderSignOut(s, &reuse))
                    return
                }
                reuse.start(kind, count: CodeLogin.layout.names.count)
                self = .code(try CodeLogin(r, &reuse))
            case "device":
                guard let r = StoredReader(bytes, DeviceLogin.layout) else { return nil }
                reuse.start(kind, count: DeviceLogin.layout.names.count)
                self = .device(try DeviceLogin(r, &reuse))
            case "signout":
                guard let r = StoredReader(bytes, ProviderSignOut.layout) else { return nil }
                reuse.start(kind, count: ProviderSignOut.layout.names.count)
                self = .signOut(try ProviderSignOut(r, &reuse))
            default:
                return nil
            }
        } catch {
            return nil
        }
    }

    /// The same from a string (tests, a single row).
    public init?(kind: String, stored: String, parse: @escaping (String, String) -> CallbackURI?) {
        var text = stored
        var reuse = StoredReuse(parse: parse)
        guard let login = text.withUTF8({ Login(kind: kind, bytes: $0, reuse: &reuse) }) else { return nil }
        self = login
    }
}
