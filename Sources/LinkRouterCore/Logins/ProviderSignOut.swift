/// A sign-out at the provider (OpenID Connect RP-Initiated Logout): the
/// browser went to the provider's `end_session_endpoint` naming a `state`, and
/// comes back to the account's redirect with that `state` alone
/// (`ProviderSignOut+Callback.swift`). Matched like a code login's callback
/// (by state, then an exact callback match), but it carries no code: a
/// sign-out is over when the browser is back. The account's tokens were
/// forgotten here before it began (`Router.logout`).
public struct ProviderSignOut: Sendable, Equatable {
    public let state: String
    /// The account's redirect, the `post_logout_redirect_uri` (interned, as a code login's).
    public internal(set) var redirect: CallbackURI
    /// Desktop id of the browser that opened the provider's page.
    public var browser: String?
    public internal(set) var issuer: String

    public init(state: String, redirect: CallbackURI, browser: String?, issuer: String) {
        self.state = state
        self.redirect = redirect
        self.browser = browser
        self.issuer = issuer
    }
}

// MARK: The stored form

extension ProviderSignOut: StoredLogin {
    /// Its lines, in writing order (`StoredForm`): the same names a code login gives the same things.
    enum Key: Int, CaseIterable {
        case state = 1, redirect, browser, issuer

        var name: String {
            switch self {
            case .state: "state"
            case .redirect: "redirect"
            case .browser: "browser"
            case .issuer: "issuer"
            }
        }
    }

    static let layout = StoredLayout(Key.allCases.map(\.name))

    func write(_ w: inout StoredWriter) {
        w.add(Key.state.rawValue, state)
        w.add(Key.redirect.rawValue, redirect.string)
        w.add(Key.browser.rawValue, browser)
        w.add(Key.issuer.rawValue, issuer)
    }

    /// Reads what `write` wrote, or a code login's value of `source=logout` (how a previous version kept sign-outs).
    init(_ r: StoredReader, _ reuse: inout StoredReuse) throws(StoredDamage) {
        guard let state = r.text(Key.state.rawValue),
            case .success(let redirect)? = r.callback(Key.redirect.rawValue, role: "post_logout_redirect_uri", &reuse),
            let issuer = r.shared(Key.issuer.rawValue, &reuse)
        else { throw StoredDamage() }
        self.init(state: state, redirect: redirect, browser: r.shared(Key.browser.rawValue, &reuse), issuer: issuer)
    }
}
