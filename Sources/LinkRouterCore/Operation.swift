/// Which operation: unique among those the core tracks, and the key under
/// which the daemon holds a call it answers later (`Transition.Reply.held`).
public struct OperationID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let value: UInt64
    public init(_ value: UInt64) { self.value = value }
    public static func < (a: OperationID, b: OperationID) -> Bool { a.value < b.value }
    public var description: String { "op\(value)" }
}

/// Work the daemon does that waits on something: a provider, an app, the
/// bus, a timer. The effect `.start(id, operation)` begins it; its outcome
/// comes back to the core as one event, `Router.completed(id, result)`, which
/// returns a transition like any other. A new kind of waiting (a keyring
/// prompt, a device-grant poll) is a new case here and in `OperationResult`,
/// not a new path through the daemon.
public enum Operation: Sendable, Equatable {
    /// Fires once after this long (a `Wait`'s timeout).
    case timer(milliseconds: UInt32)
    /// The issuer's metadata (OpenID Connect Discovery, then RFC 8414); at once when cached.
    case discover(issuer: String)
    /// The loopback listener of a session, before its authorize URL exists
    /// (port 0: any port) or again after a restart; it is the session's from then on.
    case listen(SessionID, LoopbackBinding, path: String)
    /// A link to an app: `org.freedesktop.Application.Open`, or its `Exec`.
    case deliver(url: String, app: LinkApp, context: ActivationContext)
    /// A code posted to the token endpoint, and the answer verified.
    case redeem(TokenGrant, code: String, redirectURI: String, verifier: String?)
    /// A refresh token posted to the token endpoint, and the answer verified.
    case refresh(TokenGrant, refreshToken: String, scope: String?)
    /// Which app is behind a bus connection (`GetConnectionCredentials`, then the process).
    case identify(name: String)
    /// The bus's id and the names on it now (at start: which stored owners are still here).
    case busNames
    /// An account's tokens from the keyring (nil: none kept).
    case keyringRead(AccountKey)
    /// An account's tokens to the keyring (skipped by the keyring when unchanged).
    case keyringWrite(AccountKey, TokenSet)
    /// An account's tokens forgotten by the keyring.
    case keyringDelete(AccountKey)
    /// An account's declaration written (`AddAccount`), over the one it replaces.
    case writeAccount(Account)
    /// An account's declaration removed (`RemoveAccount`).
    case removeAccount(Account)
    /// A token revoked at the provider (RFC 7009 §2.1: `token`, `token_type_hint`, `client_id`).
    case revoke(Revocation, endpoint: String)
    /// An authorization request pushed to the provider (RFC 9126 §2): the `request_uri` comes back.
    case push(PushRequest)
    /// A device authorization request (RFC 8628 §3.1): the codes come back.
    case authorizeDevice(DeviceGrant.Request)
    /// One poll of a device grant at the token endpoint (§3.4), and the answer verified.
    case pollDevice(TokenGrant, deviceCode: String)
}

/// What an operation came to.
public enum OperationResult: Sendable, Equatable {
    /// A timer fired.
    case fired
    case metadata(Result<ProviderMetadata, RouterError>)
    /// The port a listener is bound to.
    case listening(Result<Int, RouterError>)
    /// The app took the link: `.delivered` (its `Open` returned) or `.launched` (its `Exec` started).
    case delivered(Result<RouteOutcome, RouterError>)
    case tokens(Result<TokenSet, SessionFailure>)
    case identified(CallerApp)
    /// The bus's id and the names it has now.
    case busNames(Result<BusSnapshot, RouterError>)
    case keyring(Result<KeyringAnswer, RouterError>)
    /// An account's file written or removed (nil), or why not.
    case accountFile(RouterError?)
    /// The provider revoked the token (nil), or why not.
    case revoked(RouterError?)
    /// A pushed request's `request_uri`, or why there is none.
    case pushed(Result<String, RouterError>)
    /// A device authorization's codes, checked, or why there are none.
    case deviceAuthorized(Result<DeviceAuthorization, RouterError>)
}

/// The bus at one moment: its id (unique names repeat across buses) and every name on it.
public struct BusSnapshot: Sendable, Equatable {
    public let id: String
    public let names: Set<String>
    public init(id: String, names: Set<String>) {
        self.id = id
        self.names = names
    }
}
