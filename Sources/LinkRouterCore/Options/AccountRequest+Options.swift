/// `AddAccount`'s options (linkctl `account add`), which are also the keys
/// of an account's key file.
extension AccountRequest {
    public static let options = OptionTable<AccountRequest>(
        method: "AddAccount",
        [
            OptionRow(
                "issuer", .string({ $0.issuer = $1 }, get: { $0.issuer }), limit: .option,
                flag: .value("issuer", placeholder: "URL"),
                help: "the OpenID provider (its discovery gives the endpoints and keys)",
                doc: "required (or found from `for`): the issuer (https, or http on a loopback host)"),
            OptionRow(
                "for", .string({ $0.forResource = $1 }, get: { $0.forResource }), limit: .option,
                flag: .value("for", placeholder: "URL"),
                help: "the resource the account is for: its metadata (RFC 9728) gives the issuer, resource and scopes",
                doc:
                    "the protected resource the account is for (its URL): its metadata (RFC 9728) gives `issuer` (its first authorization server; one given must be among them), `resource` and, unless given, `scope` (`openid` and the scopes it lists); the daemon reads it (`AddAccount`), and writes those, never this key"
            ),
            OptionRow(
                "client_id", .string({ $0.clientID = $1 }, get: { $0.clientID }), limit: .option,
                flag: .value("client-id", placeholder: "ID"),
                help:
                    "the public client registered at the provider (left out: linkrouter registers one where the provider allows, RFC 7591)",
                doc:
                    "the public client registered at the provider; left out, the daemon registers one itself at a provider whose metadata names a `registration_endpoint` (RFC 7591) and writes its id here"
            ),
            OptionRow(
                "client_name", .string({ $0.clientName = $1 }, get: { $0.clientName }), limit: .bytes(256),
                flag: .value("client-name", placeholder: "NAME"),
                help: "the name a client linkrouter registers goes by (default: linkrouter on HOST)",
                doc:
                    "the name a client the daemon registers goes by, shown on the provider's consent page; default `linkrouter on HOST`"
            ),
            OptionRow(
                "registered", .string({ $0.registered = $1 }, get: { $0.registered }), limit: .bytes(16),
                flag: .value("registered", placeholder: "managed|unmanaged"),
                help: "written by the daemon for a client it registered",
                doc:
                    "written by the daemon for a client it registered: `managed` (the means to delete it, RFC 7592, are in the keyring, and removing the account deletes the client) or `unmanaged` (the provider offers no management; the client stays there)"
            ),
            OptionRow(
                "registration_token", .string({ $0.registrationToken = $1 }, get: { $0.registrationToken }),
                limit: .bytes(4096), flag: .value("registration-token", placeholder: "-"),
                help: "an initial access token for the registration, read from stdin (give -)",
                doc:
                    "an initial access token for the provider's registration endpoint (RFC 7591 §3), where it asks for one; spent on the registration, never written to the file (linkctl reads it from stdin)"
            ),
            OptionRow(
                "scope", .string({ $0.scope = $1 }, get: { $0.scope }), limit: .option,
                flag: .value("scope", placeholder: "SCOPE"),
                help:
                    "scopes to ask for (default: openid; add offline_access where the provider needs it for refresh tokens)",
                doc:
                    "space-separated scopes; default `openid` (add `offline_access` where the provider gives refresh tokens only for it)"
            ),
            OptionRow(
                "redirect_uri", .string({ $0.redirectURI = $1 }, get: { $0.redirectURI }), limit: .option,
                flag: .value("redirect-uri", placeholder: "URI"),
                help: "the callback registered for the client (default: http://127.0.0.1/callback, any port)",
                doc:
                    "the registered callback; default `http://127.0.0.1/callback` (a loopback listener on any port, RFC 8252 §7.3)"
            ),
            OptionRow(
                "audience", .string({ $0.audience = $1 }, get: { $0.audience }), limit: .option,
                flag: .value("audience", placeholder: "AUD"), help: "an audience parameter for the authorize request",
                doc: "sent as `audience` on the authorize request"),
            OptionRow(
                "resource", .string({ $0.resource = $1 }, get: { $0.resource }), limit: .option,
                flag: .value("resource", placeholder: "URI"), help: "a resource indicator (RFC 8707)",
                doc: "sent as `resource` (RFC 8707) on the authorize request"),
            OptionRow(
                "extra_params", .stringMap({ $0.extraParams = $1 }), flag: .pairs("param"),
                help: "NAME=VALUE added to the authorize request",
                doc: "more authorize parameters (not the ones linkrouter sets)"),
            OptionRow(
                "par", .string({ $0.par = $1 }, get: { $0.par }), limit: .bytes(16),
                flag: .value("par", placeholder: "auto|require|off"),
                help: "push the authorization request first (RFC 9126; default auto: when the provider offers it)",
                doc:
                    "`auto` (default: when the provider's metadata lists a PAR endpoint), `require` or `off`: whether the login pushes its authorization request first (RFC 9126)"
            ),
            OptionRow(
                "dpop", .string({ $0.dpop = $1 }, get: { $0.dpop }), limit: .bytes(16),
                flag: .value("dpop", placeholder: "auto|require|off"),
                help:
                    "bind the tokens to a key only the daemon holds (RFC 9449 DPoP; default auto: when the provider offers it)",
                doc:
                    "`auto` (default: when the provider's metadata lists ES256 in `dpop_signing_alg_values_supported`), `require` (a token answer that is not `token_type: DPoP` is refused: nothing is kept at a sign-in, and a refresh so answered, or tokens kept from before without a key, sign the account out) or `off`: whether the tokens are bound to an ES256 key the daemon makes and keeps with them (RFC 9449)"
            ),
            OptionRow(
                "device_authorization_endpoint",
                .string({ $0.deviceAuthorizationEndpoint = $1 }, get: { $0.deviceAuthorizationEndpoint }),
                limit: .option,
                flag: .value("device-authorization-endpoint", placeholder: "URL"),
                help:
                    "where a device login (linkctl login NAME --device) begins, for a provider whose metadata does not list it",
                doc:
                    "where a device login (RFC 8628) begins, for a provider that has the grant but does not list `device_authorization_endpoint` in its metadata (django-oauth-toolkit); https, or http on a loopback host"
            ),
            OptionRow(
                "revocation_endpoint", .string({ $0.revocationEndpoint = $1 }, get: { $0.revocationEndpoint }),
                limit: .option,
                flag: .value("revocation-endpoint", placeholder: "URL"),
                help: "where linkctl logout revokes the tokens, for a provider whose metadata does not list it",
                doc:
                    "where a sign-out revokes the tokens (RFC 7009), for a provider that lets public clients revoke but does not list `revocation_endpoint` in its metadata (django-oauth-toolkit); https, or http on a loopback host"
            ),
            OptionRow(
                "token", .string({ $0.token = $1 }, get: { $0.token }), limit: .bytes(16),
                flag: .value("token", placeholder: "access|id"),
                help: "the token handed out by default (id for OIDC Kubernetes clusters)",
                doc: "`access` (default) or `id`: what `GetToken` hands out unless asked otherwise"),
            OptionRow(
                "store", .string({ $0.store = $1 }, get: { $0.store }), limit: .bytes(16),
                flag: .value("store", placeholder: "keyring|memory"),
                help: "where tokens live (memory: for the daemon's life only)",
                doc: "`keyring` (default: the Secret Service's default collection) or `memory` (the daemon's life only)"
            ),
            OptionRow(
                "min_valid", .uint32({ $0.minValid = $1 }), flag: .value("min-valid", placeholder: "SECONDS"),
                help: "seconds a token handed out must still be valid (default 60)",
                doc: "seconds of life a handed-out token must have left; default 60"),
            OptionRow(
                "refresh", .string({ $0.refresh = $1 }, get: { $0.refresh }), limit: .bytes(16),
                flag: .value("refresh", placeholder: "ahead|on-demand"),
                help: "refresh in the background before min_valid runs out (ahead, the default) or only when asked",
                doc:
                    "`ahead` (default: the daemon refreshes the tokens in the background before `min_valid` runs out, so callers are answered from memory) or `on-demand` (only when a caller needs a fresher token)"
            ),
            OptionRow(
                "unsaved", .string({ $0.unsaved = $1 }, get: { $0.unsaved }), limit: .bytes(16),
                flag: .value("unsaved", placeholder: "runtime|drop"),
                help:
                    "new tokens the keyring could not take when the daemon stops: set aside in the runtime directory (the default) or dropped",
                doc:
                    "`runtime` (default: a rotated set the keyring could not take by the end of a stop is set aside in `$XDG_RUNTIME_DIR/linkrouter/unsaved/`, 0600, until the next daemon writes it to the keyring) or `drop` (never outside the keyring: the set is lost, and the account may need a new sign-in); docs/accounts.md weighs the two"
            ),
            OptionRow(
                "default", .bool({ $0.isDefault = $1 }, get: { $0.isDefault ?? false }), flag: .setsTrue("default"),
                help:
                    "the account linkctl token --issuer URL picks among several at its issuer (clears it on the others)",
                doc:
                    "`true`: the account a caller gets among several of its own at this issuer when it asks by issuer (`GetToken` with an empty name and `issuer`, `linkctl token --issuer URL`); one per issuer: `linkctl account add … --default` clears it on the user's others, `AddAccount` on the app's"
            ),
            OptionRow(
                "confirm", .bool({ $0.confirm = $1 }, get: { $0.confirm ?? false }), flag: .setsTrue("confirm"),
                help: "ask the person before each token a program of theirs gets (a notification: Allow once, Deny)",
                doc:
                    "`true`: every `GetToken`/`SignProof` of a host program waits on the person's yes, in a notification naming the program (its app id from its systemd scope, else its executable): Allow once or Deny, 60 s, no notification server is a no (`AccessDenied`); sandboxed apps are asked about the person's accounts whatever this says"
            ),
            OptionRow(
                "username", .string({ $0.username = $1 }, get: { $0.username }), limit: .option,
                flag: .value("username", placeholder: "NAME"),
                help:
                    "the user name a registry gets with the token (default oauth2; git's is credential git --username)",
                doc:
                    "the user name `docker-credential-linkrouter` gives with the token; default `oauth2` (git's comes from `linkctl credential git --username`)"
            ),
            OptionRow(
                "registries", .strings({ $0.registries = $1 }), flag: .repeated("registry", placeholder: "HOST"),
                help:
                    "a container registry whose docker credentials this account answers (docker-credential-linkrouter)",
                doc:
                    "registry hosts (`registry.example.com`, `registry.example.com:5000`) whose docker credentials `docker-credential-linkrouter` answers with this account's token"
            ),
            OptionRow(
                "git_urls", .strings({ $0.gitURLs = $1 }), flag: .repeated("git-url", placeholder: "URL"),
                help:
                    "a forge URL (https://git.example.com/, or a path under it) whose git credentials this account answers (credential git with no --account)",
                doc:
                    "https URL prefixes (`https://git.example.com/`, `https://git.example.com/team/`) whose git credentials `linkctl credential git` without `--account` answers with this account's token (the longest match wins; a prefix with a path needs git's `credential.useHttpPath`)"
            ),
        ])
}
