/// What the daemon signs for a `SignProof` the core let through: the
/// account's key, the request, and the access token whose hash the proof carries.
public struct ProofPlan: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    public let key: DPoPKey
    public let method: String
    public let url: String
    public let nonce: String?
    public let accessToken: String

    /// Never the token or the key: a plan reaches log lines inside a reply.
    public var description: String { "proof of \(key.thumbprint) for \(method) \(DPoPProofTarget.uri(url))" }
    public var debugDescription: String { description }
}
