/// `RefreshTokens`' options (linkctl `token refresh`).
extension RefreshRequest {
    public static let options = OptionTable<RefreshRequest>(
        method: "RefreshTokens",
        [
            OptionRow(
                "issuer", .string({ $0.issuer = $1 }, get: { $0.issuer }), limit: .option,
                flag: .value("issuer", placeholder: "URL"), help: "the issuer the refresh token came from",
                doc: "required: the issuer the refresh token came from"),
            OptionRow(
                "client_id", .string({ $0.clientID = $1 }, get: { $0.clientID }), limit: .option,
                flag: .value("client-id", placeholder: "ID"), help: "the client it was issued to",
                doc: "required: the client it was issued to"),
            OptionRow(
                "refresh_token", .string({ $0.refreshToken = $1 }, get: { $0.refreshToken }), limit: .bytes(8192),
                flag: .value("refresh-token", placeholder: "TOKEN"),
                help: "the refresh token, or - to read it from stdin (keeps it out of `ps`)",
                doc: "required: at most 8 KiB of printable ASCII"),
            OptionRow(
                "scope", .string({ $0.scope = $1 }, get: { $0.scope }), limit: .option,
                flag: .value("scope", placeholder: "SCOPE"), help: "a narrower scope than the one granted",
                doc: "a narrower scope (RFC 6749 §6); default: the one granted"),
        ])
}
