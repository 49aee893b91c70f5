/// `GetToken`'s options once decoded (`TokenRequest.options`).
public struct TokenRequest: Sendable, Equatable {
    /// The ID token instead of the account's default.
    public var idToken: Bool?
    /// More life than the account's `min_valid`.
    public var minValid: UInt32?
    /// The caller signs the person in itself when the account is not signed in: no desktop notice for it.
    public var interactive: Bool?
    /// With an empty account name: the caller's account at this issuer (`IssuerChoice`).
    public var issuer: String?
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
            OptionRow(
                "issuer", .string({ $0.issuer = $1 }, get: { $0.issuer }), limit: .option,
                flag: .value("issuer", placeholder: "URL"),
                help:
                    "without NAME: the account at this issuer (its default among several); with refresh: the issuer the refresh token came from",
                doc:
                    "with an empty account name: the caller's account at this issuer (a trailing `/` aside, the issuer as declared): the only one, else the one declared `default=true`; none is `UnknownAccount`, several without one default `AmbiguousAccount`, naming them. With a name: `InvalidArgument`"
            ),
        ])
}
