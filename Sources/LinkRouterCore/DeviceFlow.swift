/// A device-grant login (RFC 8628): what a session of this flow remembers to
/// poll for its tokens and to show the person where to sign in. No callback
/// ever comes for it, so it is never indexed by state or by callback.
public struct DeviceFlow: Sendable, Equatable {
    public let issuer: String
    /// Where the polls go and what their tokens must satisfy; the account that keeps them.
    public internal(set) var exchange: TokenExchange
    /// What the polls carry: a secret, gone once the session ends.
    public var deviceCode: String?
    /// What the person enters at `verificationURI`.
    public let userCode: String
    public let verificationURI: String
    public let verificationURIComplete: String?
    /// Seconds between polls; `slow_down` raises it for good (RFC 8628 §3.5).
    public var interval: UInt32

    public init(issuer: String, exchange: TokenExchange, authorization a: DeviceAuthorization) {
        self.init(
            issuer: issuer, exchange: exchange, deviceCode: a.deviceCode, userCode: a.userCode,
            verificationURI: a.verificationURI,
            verificationURIComplete: a.verificationURIComplete, interval: a.interval)
    }

    public init(
        issuer: String, exchange: TokenExchange, deviceCode: String?, userCode: String, verificationURI: String,
        verificationURIComplete: String?, interval: UInt32
    ) {
        self.issuer = issuer
        self.exchange = exchange
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.interval = interval
    }

    /// The store's value: `key=value` lines (every value was checked as a URI or
    /// visible ASCII, so none holds a line break).
    var stored: String {
        var lines = [
            "v=\(SessionFlow.storedVersion)", "issuer=\(issuer)", "client_id=\(exchange.clientID)",
            "token_endpoint=\(exchange.tokenEndpoint)",
            "jwks_uri=\(exchange.jwksURI)", "user_code=\(userCode)", "verification_uri=\(verificationURI)",
            "interval=\(interval)",
        ]
        if exchange.expectsIDToken { lines.append("openid=1") }
        if let a = exchange.account { lines.append("account=\(a)") }
        if exchange.accountInMemory { lines.append("account_memory=1") }
        if let d = exchange.dpop { lines.append("dpop=\(d.stored)") }
        if let c = deviceCode { lines.append("device_code=\(c)") }
        if let c = verificationURIComplete { lines.append("verification_uri_complete=\(c)") }
        return lines.joined(separator: "\n")
    }

    /// Reads `stored`; nil when a required line is missing. Unknown keys are ignored.
    init?(stored: String) {
        var f: [Substring: Substring] = [:]
        for line in stored.split(separator: "\n") {
            guard let eq = line.firstIndex(of: "=") else { return nil }
            f[line[..<eq]] = line[line.index(after: eq)...]
        }
        guard let issuer = f["issuer"], let client = f["client_id"], let token = f["token_endpoint"],
            let jwks = f["jwks_uri"],
            let user = f["user_code"], let page = f["verification_uri"],
            let interval = f["interval"].flatMap({ UInt32($0) })
        else { return nil }
        var dpop: DPoPBinding?
        if let line = f["dpop"] {
            guard let binding = DPoPBinding(stored: String(line)) else { return nil }
            dpop = binding
        }
        let exchange = TokenExchange(
            clientID: String(client), tokenEndpoint: String(token), jwksURI: String(jwks),
            expectsIDToken: f["openid"] == "1", account: f["account"].map(String.init),
            accountInMemory: f["account_memory"] == "1", dpop: dpop)
        self.init(
            issuer: String(issuer), exchange: exchange, deviceCode: f["device_code"].map(String.init),
            userCode: String(user), verificationURI: String(page),
            verificationURIComplete: f["verification_uri_complete"].map(String.init),
            interval: min(max(interval, 1), DeviceGrant.maxInterval))
    }
}
