/// What kind of login a session is, with what that kind must remember. The
/// header (`Session`) is the same for all; a new flow is one more case here,
/// and one more case in the store's flow value.
public indirect enum SessionFlow: Sendable, Equatable {
    /// The authorization code flow: a browser, a callback, a state.
    case code(CodeFlow)
    /// The device authorization grant (RFC 8628): a code the person enters elsewhere, and polls.
    case device(DeviceFlow)

    /// The name the store keeps with the flow's value.
    public var kind: String {
        switch self {
        case .code: return "code"
        case .device: return "device"
        }
    }

    /// The token exchange the login ends with, whatever its flow (a device grant's always has one).
    public var exchange: TokenExchange? {
        switch self {
        case .code(let c): return c.exchange
        case .device(let d): return d.exchange
        }
    }

    /// The issuer the login is with, when known.
    public var issuer: String? {
        switch self {
        case .code(let c): return c.issuer
        case .device(let d): return d.issuer
        }
    }

    /// The device grant's part, when the session is one.
    public var deviceFlow: DeviceFlow? {
        if case .device(let d) = self { return d }
        return nil
    }

    /// The flow with its secrets gone (a code verifier, a device code, a DPoP key): the session ended.
    func withoutSecrets() -> SessionFlow {
        switch self {
        case .code(var c):
            c.codeVerifier = nil
            c.forgetDPoPKey()
            return .code(c)
        case .device(var d):
            d.deviceCode = nil
            d.exchange = d.exchange.binding(nil)
            return .device(d)
        }
    }
}

extension SessionFlow {
    /// Changes the code flow in place: its fields are moved out and back, not
    /// copied (a restore interns the callbacks of 10,000 of them).
    mutating func modifyCode(_ body: (inout CodeFlow) -> Void) {
        switch consume self {
        case .code(var c):
            body(&c)
            self = .code(c)
        case .device(let d):
            self = .device(d)
        }
    }

    /// The code flow's part, when the session is one.
    public var codeFlow: CodeFlow? {
        switch self {
        case .code(let c): return c
        case .device: return nil
        }
    }
}
