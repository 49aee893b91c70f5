/// A device-grant login (RFC 8628): what a session of this kind remembers to
/// poll for its tokens and to show the person where to sign in. No callback
/// ever comes for it, so it is never indexed by state or by callback; it polls
/// (`DeviceLogin+Polls.swift`) until tokens, an end, or its expiry.
public struct DeviceLogin: Sendable, Equatable {
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
            verificationURI: a.verificationURI, verificationURIComplete: a.verificationURIComplete, interval: a.interval
        )
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

    /// Whether it still holds a secret (the device code, a DPoP key) that an ended login must not keep.
    var holdsSecrets: Bool { deviceCode != nil || exchange.dpop != nil }

    /// The login ended: its device code and DPoP key go.
    mutating func forgetSecrets() {
        deviceCode = nil
        exchange = exchange.binding(nil)
    }
}

// MARK: The stored form

extension DeviceLogin: StoredLogin {
    /// Its lines, in writing order (`StoredForm`); the exchange's follow, then
    /// the names the exchange's lines had before they were one for every login
    /// (read, never written: rows a previous version kept).
    enum Key: Int, CaseIterable {
        case issuer = 1, userCode, verificationURI, interval, deviceCode, verificationURIComplete

        var name: String {
            switch self {
            case .issuer: "issuer"
            case .userCode: "user_code"
            case .verificationURI: "verification_uri"
            case .interval: "interval"
            case .deviceCode: "device_code"
            case .verificationURIComplete: "verification_uri_complete"
            }
        }
    }

    static let exchangeAt = Key.allCases.count + 1
    static let formerExchangeAt = exchangeAt + TokenExchange.storedKeys.count
    static let layout = StoredLayout(
        Key.allCases.map(\.name) + TokenExchange.storedKeys
            // The former names had no step-up: two names no value carries keep the layout as long as the new one's.
            + [
                "client_id", "token_endpoint", "jwks_uri", "openid", "account", "account_memory", "dpop",
                "former_acr_values", "former_max_age",
            ])

    func write(_ w: inout StoredWriter) {
        w.add(Key.issuer.rawValue, issuer)
        w.add(Key.userCode.rawValue, userCode)
        w.add(Key.verificationURI.rawValue, verificationURI)
        w.add(Key.interval.rawValue, String(interval))
        w.add(Key.deviceCode.rawValue, deviceCode)
        w.add(Key.verificationURIComplete.rawValue, verificationURIComplete)
        exchange.write(&w, at: Self.exchangeAt)
    }

    /// Reads what `write` wrote (or a previous version did); the interval clamped as the provider's is.
    init(_ r: StoredReader, _ reuse: inout StoredReuse) throws(StoredDamage) {
        var exchange = try TokenExchange.read(r, at: Self.exchangeAt, &reuse)
        if exchange == nil { exchange = try TokenExchange.read(r, at: Self.formerExchangeAt, &reuse) }
        guard let issuer = r.shared(Key.issuer.rawValue, &reuse), let user = r.text(Key.userCode.rawValue),
            let page = r.shared(Key.verificationURI.rawValue, &reuse),
            let interval = r.text(Key.interval.rawValue).flatMap({ UInt32($0) }), let exchange
        else { throw StoredDamage() }
        self.init(
            issuer: issuer, exchange: exchange, deviceCode: r.text(Key.deviceCode.rawValue), userCode: user,
            verificationURI: page, verificationURIComplete: r.text(Key.verificationURIComplete.rawValue),
            interval: min(max(interval, 1), DeviceGrant.maxInterval))
    }
}
