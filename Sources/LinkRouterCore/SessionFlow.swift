/// What kind of login a session is, with what that kind must remember. The
/// header (`Session`) is the same for all; a new flow (the device grant of
/// RFC 8628: its device code, user code, verification URI and next poll) is
/// one more case here, and one more case in the store's flow value.
public indirect enum SessionFlow: Sendable, Equatable {
    /// The authorization code flow: a browser, a callback, a state.
    case code(CodeFlow)

    /// The name the store keeps with the flow's value.
    public var kind: String {
        switch self {
        case .code: return "code"
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
        }
    }

    /// The code flow's part, when the session is one.
    public var codeFlow: CodeFlow? {
        switch self {
        case .code(let c): return c
        }
    }
}
