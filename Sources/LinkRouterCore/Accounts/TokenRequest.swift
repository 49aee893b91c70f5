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
    /// A protected resource named by its URL (RFC 9728, `ResourceLookup`): the account is found from its metadata,
    /// and the token asked for it (RFC 8707).
    public var forResource: String?
    /// With `forResource`: where its metadata is, as the resource's challenge said (`resource_metadata`).
    public var resourceMetadata: String?
    /// A step-up (RFC 9470): the token only from a sign-in made with one of these classes, this lately.
    public var acrValues: String?
    public var maxAge: UInt32?
    /// The scopes the resource named by `forResource` lists (RFC 9728 `scopes_supported`), set by its lookup; not an
    /// option. With no `scope` asked, the token is for those of them the account holds, where that is fewer than all.
    public var resourceScopes: [String] = []
    /// `SignProof`: a proof for the access token instead of the token itself; not an option. Set by `GetToken`'s
    /// `dpop_method` and `dpop_url` too (`ProofRequest.withToken`): the token and its proof in one answer.
    public var proof: ProofRequest?
    /// What an oidc-agent client calls itself (`application_hint`), set by the agent socket; not an option. A prompt
    /// shows it beside the app's verified id, as its own say.
    public var applicationHint: String?
    /// `GetToken`'s `dpop_method`, `dpop_url` and `dpop_nonce`, made into `proof` by `withProof(limits:)`.
    public var dpopMethod: String?
    public var dpopURL: String?
    public var dpopNonce: String?

    /// The request with `proof` made from the `dpop_*` options (both or neither of method and URL), checked as
    /// `SignProof`'s are.
    public func withProof(limits: Limits) throws(RouterError) -> TokenRequest {
        guard dpopMethod != nil || dpopURL != nil || dpopNonce != nil else { return self }
        guard let dpopMethod, let dpopURL else {
            throw .invalid("a proof with the token needs both dpop_method and dpop_url (dpop_nonce is optional)")
        }
        var proof = ProofRequest(method: dpopMethod, url: dpopURL)
        proof.nonce = dpopNonce
        proof.withToken = true
        var out = self
        out.proof = try proof.checked(limits: limits)
        return out
    }

    public init() {}

    public static let options = OptionTable<TokenRequest>(
        method: "GetToken",
        [
            OptionRow(
                TokenOptionNames.idToken, .bool({ $0.idToken = $1 }), flag: .setsTrue("id-token"),
                help: "the ID token instead of the account's default",
                doc: "`true`: the ID token; `false`: the access token; default: the account's `token`"),
            OptionRow(
                TokenOptionNames.minValidKey, .uint32({ $0.minValid = $1 }),
                flag: .value(TokenOptionNames.minValidFlag, placeholder: "SECONDS"),
                help: "seconds the token must still be valid (default: the account's min_valid)",
                doc: "seconds of life the token must have left (at most 3600); default: the account's `min_valid`"),
            OptionRow(
                TokenOptionNames.interactive, .bool({ $0.interactive = $1 }), flag: .setsTrue("interactive"),
                help:
                    "with NAME (or --for URL): when the account is not signed in, sign in now (as linkctl login NAME), then print the token; with --for and no account there, one is declared from the resource's metadata first",
                doc:
                    "`true`: the caller signs the person in itself when the account is not signed in (as `linkctl token --interactive` and kubectl's interactive exec do), so no desktop notice is posted for this call; the answer is still `NotSignedIn`"
            ),
            OptionRow(
                TokenOptionNames.dpopMethod.1, .string({ $0.dpopMethod = $1 }, get: { $0.dpopMethod }),
                limit: .bytes(32), flag: .value(TokenOptionNames.dpopMethod.0, placeholder: "METHOD"),
                help:
                    "with NAME URL: print the Authorization and DPoP headers for METHOD URL (RFC 9449), the proof signed by the daemon",
                doc:
                    "with `dpop_url`: the access token and, under `dpop_proof`, a DPoP proof (RFC 9449) of the account's key for this HTTP method and URL, bound to that very token (`ath`), in one answer; the rules of `SignProof`'s `method`"
            ),
            OptionRow(
                TokenOptionNames.dpopURL.1, .string({ $0.dpopURL = $1 }, get: { $0.dpopURL }), limit: .bytes(8192),
                flag: .value(TokenOptionNames.dpopURL.0, placeholder: "URL"),
                help: "with --dpop: the resource URL the proof is for (or give it after NAME)",
                doc: "with `dpop_method`: the resource the proof is for; the rules of `SignProof`'s `url`"),
            OptionRow(
                TokenOptionNames.dpopNonce.1, .string({ $0.dpopNonce = $1 }, get: { $0.dpopNonce }),
                limit: .bytes(512), flag: .value(TokenOptionNames.dpopNonce.0, placeholder: "NONCE"),
                help: "with --dpop: the DPoP-Nonce the resource server answered with",
                doc: "with `dpop_method`: the resource server's `DPoP-Nonce` (RFC 9449 §9)"),
            OptionRow(
                TokenOptionNames.issuer.1, .string({ $0.issuer = $1 }, get: { $0.issuer }), limit: .option,
                flag: .value(TokenOptionNames.issuer.0, placeholder: "URL"),
                help:
                    "without NAME: the account at this issuer (its default among several); with refresh: the issuer the refresh token came from",
                doc:
                    "with an empty account name: the caller's account at this issuer (a trailing `/` aside, the issuer as declared): the only one, else the one declared `default=true`; none is `UnknownAccount`, several without one default `AmbiguousAccount`, naming them. With a name: `InvalidArgument`"
            ),
            OptionRow(
                TokenOptionNames.scope.1, .string({ $0.scope = $1 }, get: { $0.scope }), limit: .option,
                flag: .value(TokenOptionNames.scope.0, placeholder: "SCOPE"),
                help:
                    "a token for a subset of the account's scope (with refresh: a narrower scope than the one granted)",
                doc:
                    "a token for a subset of the account's scope (RFC 6749 §6), got by a refresh asking for it and kept apart from the account's own; a scope beyond the account's is `InvalidArgument`, and a provider that answers with a wider one is `TokenExchangeFailed` (the token is not handed out)"
            ),
            OptionRow(
                TokenOptionNames.resource.1, .strings({ $0.resources = $1 }),
                flag: .repeated(TokenOptionNames.resource.0, placeholder: "URI"),
                help: "a token for this resource server (RFC 8707)",
                doc:
                    "a token for these resource servers (RFC 8707 `resource` at the token endpoint): absolute URIs without fragment; each set of scope, resources and audience has its own token"
            ),
            OptionRow(
                TokenOptionNames.audience.1, .string({ $0.audience = $1 }, get: { $0.audience }), limit: .option,
                flag: .value(TokenOptionNames.audience.0, placeholder: "AUDIENCE"),
                help: "a token for this audience, for providers that take an audience parameter",
                doc:
                    "a token for this audience (an `audience` parameter at the token endpoint, for providers that take it instead of `resource`)"
            ),
            OptionRow(
                TokenOptionNames.forResource.1, .string({ $0.forResource = $1 }, get: { $0.forResource }),
                limit: .option, flag: .value(TokenOptionNames.forResource.0, placeholder: "URL"),
                help:
                    "a token for the resource at URL: its metadata (RFC 9728) names where to sign in; the token is for it alone (RFC 8707)",
                doc:
                    "a token for the protected resource at this URL (https, http only on a loopback host): its metadata (`/.well-known/oauth-protected-resource` inserted before the URL's path, RFC 9728) must name this very URL as its `resource` (else `DiscoveryFailed`: a mix-up) and the issuers it takes tokens from; the account is the one named (which must sign in at one of them, else `AccessDenied`) or, with an empty name, the caller's account at the first of them it has one at (its default among several; none: `UnknownAccount`); the token is then a narrower token with `resource` set to the URL (RFC 8707), kept per resource. Not with `issuer` or `resource`"
            ),
            OptionRow(
                TokenOptionNames.resourceMetadata.1,
                .string({ $0.resourceMetadata = $1 }, get: { $0.resourceMetadata }),
                limit: .option, flag: .value(TokenOptionNames.resourceMetadata.0, placeholder: "URL"),
                help: "with --for: where the resource's metadata is, as its 401 challenge said (resource_metadata)",
                doc:
                    "with `for`: the URL of the resource's metadata as its 401 challenge named it (`resource_metadata`, RFC 9728 §5.1), fetched instead of the well-known place (https, http only on a loopback host); the document must still name the `for` URL as its `resource`"
            ),
            OptionRow(
                TokenOptionNames.acrValues.1, .string({ $0.acrValues = $1 }, get: { $0.acrValues }), limit: .option,
                flag: .value(TokenOptionNames.acrValues.0, placeholder: "ACR"),
                help:
                    "a step-up: only from a sign-in made with one of these authentication classes (--interactive signs in so)",
                doc:
                    "a step-up (RFC 9470, a resource server's `insufficient_user_authentication`): the token only from a sign-in whose ID token's `acr` is one of these space-separated classes; else `StepUpRequired`, naming the sign-in that asks for them (`Login` with the same `acr_values`)"
            ),
            OptionRow(
                TokenOptionNames.maxAge.1, .uint32({ $0.maxAge = $1 }, get: { $0.maxAge }),
                flag: .value(TokenOptionNames.maxAge.0, placeholder: "SECONDS"),
                help: "a step-up: only from a sign-in at most SECONDS old (--interactive signs in again)",
                doc:
                    "a step-up (RFC 9470): the token only from a sign-in whose ID token's `auth_time` is at most this many seconds ago (120 s of clock skew allowed); else `StepUpRequired`"
            ),
            OptionRow(
                TokenOptionNames.forURL, .string({ $0.forURL = $1 }, get: { $0.forURL }), limit: .option,
                flag: .value("for-url", placeholder: "URL"),
                help: "the URL the token is for: an account with git_urls answers only for those",
                doc:
                    "the URL the token will be sent to (the git helper gives git's request): an account that declares `git_urls` answers only for a URL under one of them, else `AccessDenied`; an account without `git_urls` answers any"
            ),
        ])
}
