/// Where the daemon listens for a loopback redirect URI: the one rule for a
/// new session and for one restored after a restart. The redirect URI the
/// app names reaches the provider as it was written, with only its port
/// filled in, so the listener must answer on whatever that host resolves to.
public struct LoopbackBinding: Sendable, Equatable {
    /// The addresses to bind, on one port: `127.0.0.1`, `::1`, or both for
    /// `localhost` (a browser may resolve it either way). Never a wildcard (threat model L4).
    public let addresses: [String]
    /// The host a genuine request names in `Host` (with the port): the redirect URI's own.
    public let hostLiteral: String
    /// 0 for any free port.
    public let port: Int

    public init(addresses: [String], hostLiteral: String, port: Int) {
        self.addresses = addresses
        self.hostLiteral = hostLiteral
        self.port = port
    }
}

extension CallbackURI {
    /// The binding for this loopback callback as written (nil for other styles).
    public var loopbackBinding: LoopbackBinding? {
        guard let host = loopbackHost else { return nil }
        let addresses: [String]
        switch host {
        case "[::1]": addresses = ["::1"]
        case "localhost": addresses = ["127.0.0.1", "::1"]
        default: addresses = ["127.0.0.1"]
        }
        return LoopbackBinding(addresses: addresses, hostLiteral: host, port: loopbackPort)
    }
}
