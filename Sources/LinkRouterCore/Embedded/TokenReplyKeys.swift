/// `GetToken`'s answer keys, spelled once: the daemon writes them (`ResultDictionary`), both halves of linkctl read
/// them (the front compiles this file).
public enum TokenReplyKeys {
    /// `access` or `id`.
    public static let kind = "kind"
    public static let token = "token"
    public static let tokenType = "token_type"
    /// Unix seconds (`x`).
    public static let expiresAt = "expires_at"
    public static let scope = "scope"
    /// The resources of a narrower token (`as`).
    public static let resource = "resource"
    public static let audience = "audience"
    public static let subject = "sub"
    /// The account's name (asked by issuer or for a resource, the one picked): what `RejectToken` names.
    public static let account = "account"
    public static let warning = "warning"
    /// The DPoP proof signed for this answer's access token.
    public static let dpopProof = "dpop_proof"
}
