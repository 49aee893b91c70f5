/// The device authorization grant (RFC 8628), for a machine with no browser
/// (SSH, a server, a container): the provider gives a device code and a
/// user code (§3.2), the person enters the user code at the verification
/// URI on another device (a phone), and the client polls the token endpoint
/// at `interval` until the provider answers with tokens or with an end
/// (§3.4, §3.5). The rules here are the protocol's; the daemon carries out
/// the requests and the waits.
public enum DeviceGrant {
    /// The polls' `grant_type` (§3.4).
    public static let grantType = "urn:ietf:params:oauth:grant-type:device_code"
    /// §3.2: the interval when the provider names none.
    public static let defaultInterval: UInt32 = 5
    /// §3.5: what `slow_down` adds to the interval, for that poll and every later one.
    public static let slowDownStep: UInt32 = 5
    /// An interval beyond this is the provider's mistake, not a wait a person should sit through.
    public static let maxInterval: UInt32 = 300
    /// A device code valid for more than a day is taken as valid for a day.
    public static let maxLifetime: UInt32 = 86_400

    /// The request (§3.1): `client_id` and `scope`, form-encoded, to the provider's
    /// `device_authorization_endpoint`. A public client sends nothing else.
    public struct Request: Sendable, Equatable {
        public let endpoint: String
        public let clientID: String
        public let scope: String
        /// An account's `audience`, `resource` and authorize parameters: a provider may need them here too.
        public let parameters: [String: String]

        public init(endpoint: String, clientID: String, scope: String, parameters: [String: String] = [:]) {
            self.endpoint = endpoint
            self.clientID = clientID
            self.scope = scope
            self.parameters = parameters
        }

        public var form: [(String, String)] {
            [("client_id", clientID), ("scope", scope)]
                + parameters.sorted { $0.key < $1.key }.filter { !["client_id", "scope"].contains($0.key) }.map {
                    ($0.key, $0.value)
                }
        }
        /// For logs and errors: the endpoint, never a code.
        public var logTag: String { "the device authorization request to \(endpoint)" }
    }

    /// What to do after a poll the provider did not answer with tokens (§3.5).
    public enum Step: Sendable, Equatable {
        /// Poll again after `interval` seconds (the interval to use from now on).
        case poll(interval: UInt32)
        /// The grant is over: the person refused, the code expired, or the provider failed it.
        case end(RouterError)
    }

    /// The step after a poll that failed with `failure`, polling every `interval`
    /// seconds, at `now`, for a device code valid until `deadline` (unix seconds).
    /// `authorization_pending` waits the interval again; `slow_down` adds 5 s to it
    /// for good; `access_denied`, `expired_token` and every other error of the
    /// provider's end it. An answer with no error of the provider's (no connection,
    /// a 5xx page, a body that is not JSON) is taken as passing trouble: the
    /// interval doubles (§3.5's backoff), up to `maxInterval`. A next poll that
    /// would come after the deadline is not made.
    public static func step(after failure: SessionFailure, interval: UInt32, now: Int64, deadline: Int64) -> Step {
        let next: UInt32
        switch failure.providerError {
        case "authorization_pending":
            next = interval
        case "slow_down":
            next = min(interval + slowDownStep, maxInterval)
        case "access_denied":
            return .end(
                RouterError(
                    .authorizationFailed,
                    "the sign-in was refused on the other device (access_denied, RFC 8628 §3.5); nothing was stored"))
        case "expired_token":
            return .end(
                RouterError(
                    .expired,
                    "the device code expired before the sign-in was finished on the other device (expired_token); begin a new login"
                ))
        case nil:
            next = min(interval * 2, maxInterval)
        default:
            return .end(failure.error)
        }
        guard now + Int64(next) < deadline else {
            return .end(
                RouterError(
                    .expired,
                    "the device code expires before the next poll could be made; the sign-in was not finished on the other device in time; begin a new login"
                ))
        }
        return .poll(interval: next)
    }
}
