/// DPoP (RFC 9449) for an account's login: its tokens are bound to a key
/// the daemon holds, so a copied access or refresh token is worth nothing
/// without the daemon. The account's `dpop` option says when; the binding
/// travels with the token exchange, the grant and the pushed request.
public struct DPoPBinding: Sendable, Equatable {
    /// The account's `dpop` option: `auto` binds when the issuer's metadata lists ES256 in
    /// `dpop_signing_alg_values_supported`; `require` always, and refuses a token answer that
    /// is not `token_type: DPoP`; `off` sends no proof.
    public typealias Mode = FeatureMode

    /// The only algorithm the daemon's keys sign with.
    public static let algorithm = "ES256"

    public let key: DPoPKey
    /// `dpop=require`: the token endpoint must answer `token_type: DPoP` (RFC 9449 §5).
    public let required: Bool

    public init(key: DPoPKey, required: Bool) {
        self.key = key
        self.required = required
    }

    /// Why a token answer cannot be kept under `dpop=require`, or nil: RFC 9449 §5, the
    /// answer's `token_type` says whether the access token is bound.
    static func unbound(_ tokens: TokenSet) -> String? {
        guard tokens.tokenType.lowercased() != "dpop" else { return nil }
        return
            "the token endpoint answered token_type \"\(tokens.tokenType.prefix(40))\", not DPoP, although the account requires DPoP (dpop=require): its tokens would not be bound to the daemon's key, so none was kept"
    }

    /// One line of a stored flow: `require` or `auto`, the thumbprint, the private JWK (compact JSON: no space, no line
    /// break).
    var stored: String { (required ? "require " : "auto ") + key.thumbprint + " " + key.privateJWK }

    init?(stored: String) {
        let parts = stored.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "require" || parts[0] == "auto",
            let key = DPoPKey(privateJWK: String(parts[2]), thumbprint: String(parts[1]))
        else {
            return nil
        }
        self.init(key: key, required: parts[0] == "require")
    }

    /// Whether a login with `mode` at a provider of `metadata` binds its
    /// tokens: nil for no, else whether binding is required.
    static func decide(_ mode: Mode, metadata: ProviderMetadata?) throws(RouterError) -> Bool? {
        let listed = metadata?.dpopSigningAlgorithms
        switch mode {
        case .off:
            return nil
        case .auto:
            return listed?.contains(algorithm) == true ? false : nil
        case .require:
            if let listed, !listed.contains(algorithm) {
                throw .invalid(
                    "dpop=require, but the provider's dpop_signing_alg_values_supported (\(listed.joined(separator: " "))) does not list ES256, the only algorithm linkrouter's keys sign with"
                )
            }
            return true
        }
    }
}
