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
    /// The caller's xdg-activation token and X11 startup id, from the window the person used: the browser the
    /// daemon opens gets them, so it comes to the front (issue 45). Never stored.
    public var activationToken: String?
    public var desktopStartupID: String?
    public var ttl: UInt32?
    /// Adopt mode: an authorize URL the app's backend built.
    public var authorizeURL: String?
    public var appCallbackURI: String?
    /// The options a code login keeps (`resume`, `resume_hosts`, `resume_path_prefix`, `require_iss`).
    public var login = LoginOptions()
    public var claimToken: String?
    /// Client-held PKCE: the S256 challenge of a verifier the daemon never sees.
    public var codeChallenge: String?
    public var issuer: String?
    /// `auto` (default), `require` or `off`: whether the authorization request is pushed first (RFC 9126).
    public var par: String?
    /// Exchange the code for tokens and verify the ID token (needs `issuer`).
    public var exchange: Bool = false
    /// An account's login (`linkctl login NAME`): the daemon fills the
    /// provider options from the account (`use(_:)`) and keeps the tokens.
    public var account: String?
    /// Set with the account: where it keeps its tokens; not an option.
    public var accountStore: Account.Storage?
    /// Set with the account: its device authorization endpoint, where the metadata lists none; not an option.
    public var deviceAuthorizationEndpoint: String?
    /// Set with the account: whether its tokens are bound to a key the daemon holds (RFC 9449); not an option.
    public var dpop: DPoPBinding.Mode?
    /// A step-up (RFC 9470): the authentication classes and the most age the sign-in must have
    /// (`acr_values`, `max_age`), asked of the provider and checked in the ID token (`stepUp()`).
    public var acrValues: String?
    public var maxAge: UInt32?

    public init() {}

    /// The step-up this login asks for, checked: only where the daemon exchanges the code, so that the ID token
    /// can be checked against it (an app that exchanges the code itself passes them in `extra_params`), and never
    /// also in a caller's `extra_params` (an account's own are overridden for this login).
    /// `exchanged`: the daemon gets the tokens (a code login's `exchange`; a device login always); `scope`: the
    /// login's, which must ask for the ID token (`openid`) that says how the person signed in.
    public func stepUp(exchanged: Bool, scope: String?) throws(RouterError) -> StepUp? {
        guard let stepUp = try StepUp.make(acrValues: acrValues, maxAge: maxAge) else { return nil }
        guard exchanged, authorizeURL == nil, codeChallenge == nil else {
            throw .invalid(
                "acr_values and max_age are checked in the ID token the daemon verifies: they need exchange (or an account); an app that exchanges the code itself passes them in extra_params"
            )
        }
        guard scope?.split(separator: " ").contains("openid") == true else {
            throw .invalid("acr_values and max_age are checked in the ID token: the login's scope must include openid")
        }
        if account == nil, let name = StepUp.parameterNames.first(where: { extraParams[$0] != nil }) {
            throw .invalid("\(name) is given twice: as an option and in extra_params; give it once, as the option")
        }
        return stepUp
    }

    /// `extraParams` with the step-up's parameters (they win over an account's own for this login).
    func parameters(with stepUp: StepUp?) -> [String: String] {
        var params = extraParams
        for (k, v) in stepUp?.parameters ?? [] { params[k] = v }
        return params
    }

    /// What the browser this login opens is handed: the caller's token, under both names.
    public var handOff: ActivationContext {
        ActivationContext(activationToken: activationToken, desktopStartupID: desktopStartupID).forHandOn
    }

    /// The first option given that only a browser login has (a device login
    /// refuses it), or nil: the one list for the daemon's refusal and for
    /// linkctl's choice of the device grant. An account brings its own `par`
    /// and parameters (`use`); only a caller's count.
    public var browserOnlyOption: String? {
        let given: [(String, Bool)] = [
            ("authorize_url", authorizeURL != nil), ("code_challenge", codeChallenge != nil),
            ("app_callback_uri", appCallbackURI != nil),
            ("resume", login.resume != nil), ("resume_hosts", !login.resumeHosts.isEmpty),
            ("resume_path_prefix", login.resumePathPrefix != nil), ("return_to", login.returnTo != nil),
            ("browser", browser != nil), ("authorization_endpoint", authorizationEndpoint != nil),
            ("par", account == nil && par != nil), ("extra_params", account == nil && !extraParams.isEmpty),
        ]
        return given.first(where: \.1)?.0
    }
}
