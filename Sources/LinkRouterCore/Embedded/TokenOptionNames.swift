/// `GetToken`'s option names and their linkctl flags, for the options
/// linkctl's front sends itself (it compiles this file, not `TokenRequest`'s
/// option table), spelled once: the table's rows read them here.
public enum TokenOptionNames {
    /// The `min_valid` option and its flag, `--min-valid` (a number).
    public static let minValidKey = "min_valid"
    public static let minValidFlag = "min-valid"

    /// The string options with a flag of their own, as (flag, option).
    public static let issuer = ("issuer", "issuer")
    public static let scope = ("scope", "scope")
    public static let audience = ("audience", "audience")
    public static let dpopMethod = ("dpop", "dpop_method")
    public static let dpopURL = ("dpop-url", "dpop_url")
    public static let dpopNonce = ("nonce", "dpop_nonce")
    /// A resource named by its URL (RFC 9728): its metadata says where to sign in; the token is for it (RFC 8707).
    public static let forResource = ("for", "for")
    /// With `for`: where the resource's metadata is, as its challenge said (RFC 9728 §5.1).
    public static let resourceMetadata = ("resource-metadata", "resource_metadata")
    /// A step-up (RFC 9470, `StepUp`): the authentication classes the sign-in must have been made with, and the most
    /// seconds since it; `GetToken`'s and `Login`'s alike. Not among `strings`: linkctl's front leaves them to the full
    /// linkctl.
    public static let acrValues = ("acr-values", "acr_values")
    public static let maxAge = ("max-age", "max_age")
    public static let strings = [issuer, scope, audience, dpopMethod, dpopURL, dpopNonce, forResource]
    /// The repeatable one (an `as`).
    public static let resource = ("resource", "resource")

    /// The boolean options the helpers send without a flag of their own: the ID token instead of the access token
    /// (false: the access token whatever the account hands out by default), a sign-in when none is live.
    public static let idToken = "id_token"
    public static let interactive = "interactive"
    /// The URL git asks a credential for (git's `url`): the account answers only for the hosts it declares.
    public static let forURL = "for_url"
}
