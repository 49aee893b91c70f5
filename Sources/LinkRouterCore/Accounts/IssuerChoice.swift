/// Which account a caller gets when it asks by issuer instead of by name
/// (`GetToken` with an empty name and `issuer`; `linkctl token --issuer URL`,
/// the git and kube helpers' `--issuer`): among the accounts it may use at that
/// issuer, the only one, else the one marked `default=true`, else none, with a
/// message naming them. The daemon decides with it, and linkctl with the same
/// rule where it must name the account itself (git's `erase`).
public enum IssuerChoice {
    /// An issuer as compared: a trailing `/` is not a difference (`https://id.example.com/` is
    /// `https://id.example.com`), anything else is.
    public static func same(_ a: String, _ b: String) -> Bool { trimmed(a) == trimmed(b) }

    private static func trimmed(_ s: String) -> Substring { s.hasSuffix("/") ? s.dropLast() : Substring(s) }

    /// The account of `accounts` (each with its name, issuer and whether it is the default) at `issuer`.
    public static func pick<A>(
        _ issuer: String, among accounts: [A], name: (A) -> String, issuer issuerOf: (A) -> String,
        isDefault: (A) -> Bool
    ) throws(RouterError) -> A {
        let there = accounts.filter { same(issuerOf($0), issuer) }
        guard let first = there.first else {
            throw RouterError(
                .unknownAccount,
                "no account of yours at \(issuer); linkctl accounts lists them, linkctl account add declares one")
        }
        if there.count == 1 { return first }
        let defaults = there.filter(isDefault)
        if defaults.count == 1 { return defaults[0] }
        let names = (defaults.isEmpty ? there : defaults).map(name).sorted().joined(separator: ", ")
        throw RouterError(
            .ambiguousAccount,
            "several accounts of yours at \(issuer) (\(names)) and \(defaults.isEmpty ? "none is" : "more than one is") the default; name one (linkctl token NAME), or make one the default (linkctl account add NAME … --default --replace)"
        )
    }
}
