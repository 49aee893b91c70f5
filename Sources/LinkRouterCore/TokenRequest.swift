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
    /// A narrower token (`TokenTarget`): a subset of the account's scope, resources (RFC 8707), an audience.
    public var scope: String?
    public var resources: [String] = []
    public var audience: String?
    /// The URL the token is for (git's request): an account that declares `git_urls` answers only for those.
    public var forURL: String?
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
            OptionRow(
                "scope", .string({ $0.scope = $1 }, get: { $0.scope }), limit: .option,
                flag: .value("scope", placeholder: "SCOPE"),
                help:
                    "a token for a subset of the account's scope (with refresh: a narrower scope than the one granted)",
                doc:
                    "a token for a subset of the account's scope (RFC 6749 §6), got by a refresh asking for it and kept apart from the account's own; a scope beyond the account's is `InvalidArgument`, and a provider that answers with a wider one is `TokenExchangeFailed` (the token is not handed out)"
            ),
            OptionRow(
                "resource", .strings({ $0.resources = $1 }), flag: .repeated("resource", placeholder: "URI"),
                help: "a token for this resource server (RFC 8707)",
                doc:
                    "a token for these resource servers (RFC 8707 `resource` at the token endpoint): absolute URIs without fragment; each set of scope, resources and audience has its own token"
            ),
            OptionRow(
                "audience", .string({ $0.audience = $1 }, get: { $0.audience }), limit: .option,
                flag: .value("audience", placeholder: "AUDIENCE"),
                help: "a token for this audience, for providers that take an audience parameter",
                doc:
                    "a token for this audience (an `audience` parameter at the token endpoint, for providers that take it instead of `resource`)"
            ),
            OptionRow(
                "for_url", .string({ $0.forURL = $1 }, get: { $0.forURL }), limit: .option,
                flag: .value("for-url", placeholder: "URL"),
                help: "the URL the token is for: an account with git_urls answers only for those",
                doc:
                    "the URL the token will be sent to (the git helper gives git's request): an account that declares `git_urls` answers only for a URL under one of them, else `AccessDenied`; an account without `git_urls` answers any"
            ),
        ])
}
