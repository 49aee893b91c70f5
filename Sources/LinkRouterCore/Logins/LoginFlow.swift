/// Which kind of login a begin makes: the method's row chooses it
/// (`BeginSession` and `Login` a code login, `BeginDeviceLogin` a device
/// login, `BeginLogout` a sign-out at the provider), never an option.
public enum LoginFlow: Sendable, Equatable {
    /// `CodeLogin`: a browser, a callback, a state.
    case code
    /// `DeviceLogin` (RFC 8628): no browser here, and polls.
    case device
    /// `ProviderSignOut`: the account's ID token, once read, is named to the provider.
    case signOut(idTokenHint: String?)
}

extension LoginFlow {
    /// A sign-out keeps no tokens: it needs no keyring.
    var isSignOut: Bool {
        if case .signOut = self { true } else { false }
    }
}
