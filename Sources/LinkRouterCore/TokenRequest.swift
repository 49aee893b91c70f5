/// `GetToken`'s options once decoded (`TokenRequest.options`).
public struct TokenRequest: Sendable, Equatable {
    /// The ID token instead of the account's default.
    public var idToken: Bool?
    /// More life than the account's `min_valid`.
    public var minValid: UInt32?
    /// `SignProof`: a proof for the access token instead of the token itself; not an option.
    public var proof: ProofRequest?

    public init() {}

    public static let options = OptionTable<TokenRequest>(
        method: "GetToken",
        [
            OptionRow(
                "id_token", .bool({ $0.idToken = $1 }), flag: .setsTrue("id-token"),
                help: "the ID token instead of the account's default",
                doc: "`true`: the ID token; `false`: the access token; default: the account's `token`"),
            OptionRow(
                "min_valid", .uint32({ $0.minValid = $1 }), flag: .value("min-valid", placeholder: "SECONDS"),
                help: "seconds the token must still be valid (default: the account's min_valid)",
                doc: "seconds of life the token must have left (at most 3600); default: the account's `min_valid`"),
        ])
}
