/// An authorization-code login (RFC 6749 §4.1 with PKCE): a browser, a
/// callback, a state. What a session of this kind remembers to match its
/// callback (`CodeLogin+Callback.swift`) and to finish it: with `exchange`,
/// the code goes to the token endpoint before its owner hears anything.
/// Sessions of this kind (and sign-outs) are indexed by state and by callback (`SessionTable`).
public struct CodeLogin: Sendable, Equatable {
    /// Who made the authorize URL.
    public enum Source: String, Sendable, CaseIterable {
        /// The daemon built it (state, nonce and PKCE are its own).
        case builder
        /// The app's backend built it; the daemon tracks its state and holds no verifier.
        case adopted
    }

    public let source: Source
    public let state: String
    public let nonce: String?
    public var codeVerifier: String?
    /// The registered callbacks and the origin strings are shared between
    /// sessions that name the same ones (`SessionTable.insert` interns them), so
    /// 10,000 sessions of one app hold one copy.
    public internal(set) var redirect: CallbackURI
    public internal(set) var appCallback: CallbackURI?
    /// `scheme://authority` of the authorization endpoint: `resume_uri` must be on it.
    public internal(set) var authorizationOrigin: String
    /// The options it began with that its callbacks are judged by.
    public internal(set) var options: LoginOptions
    /// Desktop id of the browser that opened the login (resume goes back to it).
    public var browser: String?
    public internal(set) var issuer: String?
    /// Set when the daemon exchanges the code for tokens (boxed: most sessions do not).
    public var exchange: TokenExchange? { exchangeBox?.value }
    private var exchangeBox: Box<TokenExchange>?
    /// `resume_uri` is opened at most once (threat model R2).
    public var resumeOpened: Bool

    public init(
        source: Source, state: String, nonce: String?, codeVerifier: String?, redirect: CallbackURI,
        appCallback: CallbackURI?, authorizationOrigin: String, options: LoginOptions, browser: String?,
        issuer: String?, exchange: TokenExchange? = nil, resumeOpened: Bool = false
    ) {
        self.source = source
        self.state = state
        self.nonce = nonce
        self.codeVerifier = codeVerifier
        self.redirect = redirect
        self.appCallback = appCallback
        self.authorizationOrigin = authorizationOrigin
        self.options = options
        self.browser = browser
        self.issuer = issuer
        self.exchangeBox = exchange.map(Box.init)
        self.resumeOpened = resumeOpened
    }

    /// Whether it still holds a secret (a verifier, a DPoP key) that an ended login must not keep.
    var holdsSecrets: Bool { codeVerifier != nil || exchange?.dpop != nil }

    /// The login ended: its verifier and DPoP key go (the key is the account's now, or nobody's).
    mutating func forgetSecrets() {
        codeVerifier = nil
        if let e = exchange, e.dpop != nil { exchangeBox = Box(e.binding(nil)) }
    }
}

// MARK: The stored form

extension CodeLogin: StoredLogin {
    /// Its lines, in writing order (`StoredForm`); the options' and the exchange's follow.
    enum Key: Int, CaseIterable {
        case source = 1, state, redirect, origin, nonce, verifier, appCallback, browser, issuer, resumeOpened

        var name: String {
            switch self {
            case .source: "source"
            case .state: "state"
            case .redirect: "redirect"
            case .origin: "origin"
            case .nonce: "nonce"
            case .verifier: "verifier"
            case .appCallback: "app_callback"
            case .browser: "browser"
            case .issuer: "issuer"
            case .resumeOpened: "resume_opened"
            }
        }
    }

    static let optionsAt = Key.allCases.count + 1
    static let exchangeAt = optionsAt + LoginOptions.rows.rows.count
    static let layout = StoredLayout(
        Key.allCases.map(\.name) + LoginOptions.rows.storedKeys + TokenExchange.storedKeys)

    func write(_ w: inout StoredWriter) {
        w.add(Key.source.rawValue, source.rawValue)
        w.add(Key.state.rawValue, state)
        w.add(Key.redirect.rawValue, redirect.string)
        w.add(Key.origin.rawValue, authorizationOrigin)
        w.add(Key.nonce.rawValue, nonce)
        w.add(Key.verifier.rawValue, codeVerifier)
        w.add(Key.appCallback.rawValue, appCallback?.string)
        w.add(Key.browser.rawValue, browser)
        w.add(Key.issuer.rawValue, issuer)
        w.flag(Key.resumeOpened.rawValue, resumeOpened)
        LoginOptions.rows.write(options, &w, at: Self.optionsAt)
        exchange?.write(&w, at: Self.exchangeAt)
    }

    /// Reads what `write` wrote; the values rows share come from the row before (`reuse`).
    init(_ r: StoredReader, _ reuse: inout StoredReuse) throws(StoredDamage) {
        guard let source = r.text(Key.source.rawValue).flatMap(Source.init(rawValue:)),
            let state = r.text(Key.state.rawValue),
            case .success(let redirect)? = r.callback(Key.redirect.rawValue, role: "redirect_uri", &reuse),
            let origin = r.shared(Key.origin.rawValue, &reuse)
        else { throw StoredDamage() }
        var appCallback: CallbackURI?
        switch r.callback(Key.appCallback.rawValue, role: "app_callback_uri", &reuse) {
        case .success(let uri)?: appCallback = uri
        case .failure?: throw StoredDamage()
        case nil: break
        }
        var options = LoginOptions()
        try LoginOptions.rows.read(r, at: Self.optionsAt, into: &options, &reuse)
        self.init(
            source: source, state: state, nonce: r.text(Key.nonce.rawValue),
            codeVerifier: r.text(Key.verifier.rawValue),
            redirect: redirect, appCallback: appCallback, authorizationOrigin: origin, options: options,
            browser: r.shared(Key.browser.rawValue, &reuse), issuer: r.shared(Key.issuer.rawValue, &reuse),
            exchange: try TokenExchange.read(r, at: Self.exchangeAt, &reuse),
            resumeOpened: r.flag(Key.resumeOpened.rawValue))
    }
}
