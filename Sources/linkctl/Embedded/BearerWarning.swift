/// What linkctl says when it hands a DPoP-bound token to a caller that sends
/// it as a bearer token (git, kubectl, docker, `Authorization: Bearer`).
/// Compiled into linkctl and, as it is, into its front.
enum BearerWarning {
    /// Whether a `GetToken` answer's `token_type` is DPoP's (any letter case).
    static func isBound(tokenType: String?) -> Bool {
        guard let t = tokenType, t.utf8.count == 4 else { return false }
        return t.utf8.elementsEqual("dpop".utf8) { a, b in a | 0x20 == b }
    }

    static func text(account: String) -> String {
        "linkctl: warning: " + account
            + "'s token is bound to the daemon's DPoP key (RFC 9449): a server that checks the binding refuses it as a bearer token; use linkctl token "
            + account + " --dpop METHOD URL, or declare the account with --dpop off\n"
    }
}
