#if !LINKCTL_FRONT
    import LinkRouterCore  // the front compiles the core's Embedded folder itself
#endif

/// How `linkctl token` prints a `GetToken` answer: the token alone (for `Authorization: Bearer $(linkctl token
/// NAME)`), or as `--json`, `--header` or `--env` ask, at most one of them. Both halves of linkctl print through
/// this, so a form the front serves and the same form of the full linkctl are the same bytes.
enum TokenPrinting: Equatable {
    case token, json, header, env

    /// The flag that asks for each.
    static let flags: [(String, TokenPrinting)] = [("json", .json), ("header", .header), ("env", .env)]

    /// The usage error when more than one is given.
    static let conflict = "give one of --json, --header and --env"

    /// What `given` (the flags on the command line) ask for; nil when more than one is given (`conflict`).
    static func chosen(_ given: [String]) -> TokenPrinting? {
        var chosen = TokenPrinting.token
        for (flag, printing) in flags where given.contains(flag) {
            guard chosen == .token else { return nil }
            chosen = printing
        }
        return chosen
    }

    /// The answer `entries`, whose token is `token`, as printed.
    func printed(_ token: String, _ entries: ReplyEntries) -> String {
        switch self {
        case .token: return token + "\n"
        case .json: return entries.json().text + "\n"
        case .header: return TokenText.header(token)
        case .env:
            return TokenText.env(
                token: token, type: entries.entry(TokenReplyKeys.tokenType) ?? "Bearer",
                expiresAt: entries.integer(TokenReplyKeys.expiresAt), scope: entries.entry(TokenReplyKeys.scope))
        }
    }

    /// `--dpop METHOD URL`: the `Authorization` and `DPoP` header lines (or, with `json`, an object of the two) for
    /// the answer's token and the proof the daemon signed for it; nil when the answer has no proof (`noProof`).
    static func proofPrinted(_ token: String, _ entries: ReplyEntries, json: Bool) -> String? {
        guard let proof = entries.entry(TokenReplyKeys.dpopProof), !proof.isEmpty else { return nil }
        let scheme =
            entries.entry(TokenReplyKeys.tokenType).map { BearerWarning.isBound(tokenType: $0) ? "DPoP" : "Bearer" }
            ?? "DPoP"
        let authorization = scheme + " " + token
        guard json else { return "Authorization: " + authorization + "\nDPoP: " + proof + "\n" }
        return JSON.object([("authorization", .string(authorization)), ("dpop", .string(proof))]).text + "\n"
    }

    /// The refusal when an answer asked for with a proof has none.
    static let noProof = "the daemon answered GetToken without the proof it was asked for"
}
