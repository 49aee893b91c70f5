/// The provider's answer to a device authorization request (RFC 8628 §3.2),
/// checked before any of it is shown to a person or posted back.
public struct DeviceAuthorization: Sendable, Equatable {
    /// The secret the polls carry; never shown, never logged.
    public let deviceCode: String
    /// What the person types at the verification URI.
    public let userCode: String
    /// Where the person goes: https (http only on a loopback host).
    public let verificationURI: String
    /// The same with the user code in it, for a QR code (optional in §3.2).
    public let verificationURIComplete: String?
    /// Seconds the codes stay valid (at most a day).
    public let expiresIn: UInt32
    /// Seconds between polls (§3.2's default 5 when absent; at least 1).
    public let interval: UInt32

    public init(
        deviceCode: String, userCode: String, verificationURI: String, verificationURIComplete: String?,
        expiresIn: UInt32, interval: UInt32
    ) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresIn = expiresIn
        self.interval = interval
    }

    /// Reads the provider's answer to `request`: HTTP `status` and its JSON `body`.
    /// A refusal says which request failed and what the provider said (§3.2 points
    /// at RFC 6749 §5.2's error form); an answer without a usable field names it.
    public init(status: Int, body: JSONValue?, request: DeviceGrant.Request) throws(RouterError) {
        func fail(_ why: String) -> RouterError {
            RouterError(.authorizationFailed, "\(request.logTag) \(why); nothing was shown")
        }
        guard status == 200 else {
            let code = body?["error"]?.stringValue.map { OAuthText.isErrorText($0) ? $0 : "invalid_response" }
            let description = OAuthText.sanitizedDescription(body?["error_description"]?.stringValue)
            let said = code.map { ": " + $0 + (description.map { ", " + $0 } ?? "") } ?? ", no reason given"
            throw fail("was refused: HTTP \(status)\(said)")
        }
        guard let body, case .object = body else { throw fail("was answered with something that is not a JSON object") }
        func text(_ key: String, max: Int) throws(RouterError) -> String {
            guard let value = body[key]?.stringValue, !value.isEmpty, value.utf8.count <= max,
                OAuthText.isVisibleText(value)
            else {
                throw fail("was answered without a usable \(key) (RFC 8628 §3.2)")
            }
            return value
        }
        func page(_ key: String) throws(RouterError) -> String {
            let value = try text(key, max: 2048)
            // A person is sent there: only a web page, never javascript: or a file.
            guard SessionPlan.isEndpoint(value, maxLength: 2048) else {
                throw fail(
                    "was answered with a \(key) that is not an https URL (http only on a loopback host): \"\(PercentEncoding.preview(Substring(value)))\""
                )
            }
            return value
        }
        func seconds(_ key: String) throws(RouterError) -> UInt32? {
            guard let value = body[key] else { return nil }
            guard let n = value.int64Value, n > 0 else {
                throw fail("was answered with a \(key) that is not a positive number of seconds")
            }
            return UInt32(clamping: n)
        }
        let deviceCode = try text("device_code", max: 4096)
        let userCode = try text("user_code", max: 64)
        let verification = try page("verification_uri")
        let complete = body["verification_uri_complete"] == nil ? nil : try page("verification_uri_complete")
        guard let lifetime = try seconds("expires_in") else {
            throw fail("was answered without expires_in (RFC 8628 §3.2)")
        }
        let interval = try seconds("interval") ?? DeviceGrant.defaultInterval
        self.init(
            deviceCode: deviceCode, userCode: userCode, verificationURI: verification,
            verificationURIComplete: complete,
            expiresIn: min(lifetime, DeviceGrant.maxLifetime), interval: min(interval, DeviceGrant.maxInterval))
    }
}
