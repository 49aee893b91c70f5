/// Why the router refused or ended something, in words a person can act on.
///
/// The core speaks only this type; the D-Bus adapter maps each `Code` to a
/// stable error name, so the names can never drift from the reasons.
public struct RouterError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The kind of refusal; each has exactly one D-Bus error name.
    public enum Code: String, Sendable, CaseIterable {
        case invalidArgument = "InvalidArgument"
        case unknownState = "UnknownState"
        case callbackMismatch = "CallbackMismatch"
        case replayed = "Replayed"
        case alreadyDelivered = "AlreadyDelivered"
        case expired = "Expired"
        case cancelled = "Cancelled"
        case accessDenied = "AccessDenied"
        case authorizationFailed = "AuthorizationFailed"
        case issuerMismatch = "IssuerMismatch"
        case timeout = "Timeout"
        case limitsExceeded = "LimitsExceeded"
        case resumeRefused = "ResumeRefused"
        case notACallback = "NotACallback"
        /// A link of a scheme no app takes.
        case noApp = "NoApp"
        /// The app a link belongs to could not take it.
        case appFailed = "AppFailed"
        case unknownSession = "UnknownSession"
        case browserFailed = "BrowserFailed"
        case listenerFailed = "ListenerFailed"
        /// The issuer's metadata could not be fetched or broke a rule (OpenID Connect Discovery, RFC 8414).
        case discoveryFailed = "DiscoveryFailed"
        /// The token endpoint refused the code or refresh token, or could not be reached.
        case tokenExchangeFailed = "TokenExchangeFailed"
        /// The ID token failed a check (signature, iss, aud, exp, iat, nonce): no token was handed out.
        case idTokenRejected = "IDTokenRejected"
        case storageFailed = "StorageFailed"
        /// No account of that name the caller may use.
        case unknownAccount = "UnknownAccount"
        /// Asked by issuer: several of the caller's accounts are there, and not exactly one is the default.
        case ambiguousAccount = "AmbiguousAccount"
        /// The account has no tokens: `linkctl login NAME` signs in.
        case notSignedIn = "NotSignedIn"
        /// The keyring's default collection is locked.
        case keyringLocked = "KeyringLocked"
        /// No Secret Service (or no default collection) to keep tokens in.
        case noKeyring = "NoKeyring"
        /// The keyring failed otherwise (a timeout, a refusal).
        case keyringFailed = "KeyringFailed"
        /// The provider could not be reached or failed; the tokens are kept.
        case refreshFailed = "RefreshFailed"
        /// `SignProof` for an account whose tokens are not bound to a DPoP key.
        case noDPoPKey = "NoDPoPKey"
        /// `SignProof` for an access token that is no longer the account's (refreshed, or rejected).
        case staleToken = "StaleToken"
        /// A client could not be registered (RFC 7591) or deleted (RFC 7592) at the provider.
        case registrationFailed = "RegistrationFailed"
        /// `GetToken` with `acr_values` or `max_age`: the account's sign-in was not made that way, or that lately;
        /// a new sign-in asking for it (`linkctl login NAME --acr-values … --max-age …`) may be.
        case stepUpRequired = "StepUpRequired"
        case internalError = "Internal"
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

extension RouterError {
    public static func invalid(_ message: String) -> RouterError { RouterError(.invalidArgument, message) }
}
