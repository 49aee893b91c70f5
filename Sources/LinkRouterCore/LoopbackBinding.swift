/// Where the daemon listens for a loopback redirect URI: the one rule for a
/// new session and for one restored after a restart.
public struct LoopbackBinding: Sendable, Equatable {
    /// The address to bind: `127.0.0.1` or `::1`, never a wildcard (threat model L4).
    public let address: String
    /// The host a genuine request names in `Host` (with the port): the redirect URI's own.
    public let hostLiteral: String
    /// 0 for any free port.
    public let port: Int

    public init(address: String, hostLiteral: String, port: Int) {
        self.address = address
        self.hostLiteral = hostLiteral
        self.port = port
    }
}

extension CallbackURI {
    /// The binding for this loopback callback as written (nil for other styles).
    public var loopbackBinding: LoopbackBinding? {
        guard let host = loopbackHost else { return nil }
        return LoopbackBinding(address: host == "[::1]" ? "::1" : "127.0.0.1", hostLiteral: host, port: loopbackPort)
    }
}
