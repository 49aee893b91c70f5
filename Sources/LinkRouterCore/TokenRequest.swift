/// `GetToken`'s options once decoded (`TokenRequest.options`).
public struct TokenRequest: Sendable, Equatable {
    /// The ID token instead of the account's default.
    public var idToken: Bool?
    /// More life than the account's `min_valid`.
    public var minValid: UInt32?
    /// The caller signs the person in itself when the account is not signed in: no desktop notice for it.
    public var interactive: Bool?
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
            OptionRow(
                "interactive", .bool({ $0.interactive = $1 }), flag: .setsTrue("interactive"),
                help:
                    "with NAME: when the account is not signed in, sign in now (as linkctl login NAME), then print the token",
                doc:
                    "`true`: the caller signs the person in itself when the account is not signed in (as `linkctl token --interactive` and kubectl's interactive exec do), so no desktop notice is posted for this call; the answer is still `NotSignedIn`"
            ),
        ])
}
