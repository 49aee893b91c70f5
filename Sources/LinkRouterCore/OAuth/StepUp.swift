/// What a sign-in must have been for a token to serve (RFC 9470 step-up; OpenID Connect Core §3.1.2.1
/// `acr_values` and `max_age`): one of these authentication context classes, and no older than `maxAge` seconds.
///
/// A resource server asks for it in its challenge (`insufficient_user_authentication`); a caller passes it on
/// (`GetToken`'s `acr_values` and `max_age`). The daemon hands out a token only from a sign-in that meets it, and
/// asks a new sign-in for it at the provider (the same options on `Login`), whose ID token's `acr` and `auth_time`
/// are checked before anything is kept: a provider that signs the person in another way than asked is refused,
/// and the account's earlier sign-in stays as it was.
public struct StepUp: Sendable, Hashable {
    /// The classes asked for, in the caller's order of preference: the sign-in's `acr` must be one of them.
    /// Empty: any (only `maxAge` is asked).
    public let acrValues: [String]
    /// The most seconds since the person last authenticated (`auth_time`).
    public let maxAge: Int64?

    /// The most classes one request may name (a consent prompt and an error message show them).
    public static let maxValues = 16

    /// The step-up the two options ask for, checked; nil when neither is given.
    public static func make(acrValues: String?, maxAge: UInt32?) throws(RouterError) -> StepUp? {
        guard acrValues != nil || maxAge != nil else { return nil }
        var values: [String] = []
        if let acrValues {
            guard OAuthText.isScope(acrValues) else {
                throw .invalid(
                    "acr_values must be space-separated tokens of printable ASCII (OpenID Connect Core §3.1.2.1)")
            }
            for v in acrValues.split(separator: " ").map(String.init) where !values.contains(v) { values.append(v) }
            guard values.count <= maxValues else {
                throw .invalid("acr_values names \(values.count) classes; the limit is \(maxValues)")
            }
        }
        return StepUp(acrValues: values, maxAge: maxAge.map(Int64.init))
    }

    public init(acrValues: [String], maxAge: Int64?) {
        self.acrValues = acrValues
        self.maxAge = maxAge
    }

    /// The authorization (or device authorization) request's parameters that ask the provider for it (OpenID
    /// Connect Core §3.1.2.1).
    public var parameters: [(String, String)] {
        (acrValues.isEmpty ? [] : [(Self.acrValuesParameter, acrValues.joined(separator: " "))])
            + (maxAge.map { [(Self.maxAgeParameter, String($0))] } ?? [])
    }

    static let acrValuesParameter = "acr_values"
    static let maxAgeParameter = "max_age"
    /// The names of `parameters`, which a request's other parameters may not set too.
    public static let parameterNames = [acrValuesParameter, maxAgeParameter]

    /// How linkctl asks for it again (`linkctl login NAME` and `token` take these flags).
    public var flags: String {
        let acr = acrValues.isEmpty ? [] : ["--\(TokenOptionNames.acrValues.0) '\(acrValues.joined(separator: " "))'"]
        let age = maxAge.map { ["--\(TokenOptionNames.maxAge.0) \($0)"] } ?? []
        return (acr + age).joined(separator: " ")
    }

    /// Why a sign-in whose ID token said `acr` and `authTime` does not meet it at `now` (unix seconds), or nil.
    /// Read as "the sign-in …".
    public func unmet(acr: String?, authTime: Int64?, now: Int64) -> String? {
        if !acrValues.isEmpty {
            let asked = acrValues.joined(separator: " ")
            guard let acr else { return "names no authentication class (acr), and \(asked) was asked for" }
            guard acrValues.contains(acr) else {
                return
                    "was made with the authentication class \"\(PercentEncoding.preview(Substring(acr)))\", not one of \(asked)"
            }
        }
        if let maxAge {
            guard let authTime else { return "does not say when the person authenticated (auth_time)" }
            let age = now - authTime
            guard age <= maxAge + IDTokenClaims.clockSkew else {
                return "was made \(age) s ago, more than max_age \(maxAge) s"
            }
        }
        return nil
    }

    /// Its lines in a login's stored value: the classes, and the age.
    var stored: (String?, String?) {
        (acrValues.isEmpty ? nil : acrValues.joined(separator: " "), maxAge.map(String.init))
    }

    /// What `stored` wrote, or nil when neither line is there; damage (a line that does not read) is nil too,
    /// read by the caller as damage.
    init?(stored acr: String?, _ age: String?) {
        guard acr != nil || age != nil else { return nil }
        var maxAge: Int64?
        if let age {
            guard let n = Int64(age), n >= 0 else { return nil }
            maxAge = n
        }
        self.init(acrValues: acr.map { $0.split(separator: " ").map(String.init) } ?? [], maxAge: maxAge)
    }
}
