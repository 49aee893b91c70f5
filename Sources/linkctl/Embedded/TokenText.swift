/// What `linkctl token NAME` prints besides the token alone: `--header`'s
/// line and `--env`'s export lines. linkctl's front compiles this file as it
/// is, so both halves print the same bytes.
enum TokenText {
    /// `--header`: the whole header line.
    static func header(_ token: String) -> String { "Authorization: Bearer " + token + "\n" }

    /// `--env`: export lines a shell can eval.
    static func env(token: String, type: String, expiresAt: Int64?, scope: String?) -> String {
        var lines = [("LINKROUTER_TOKEN", token), ("LINKROUTER_TOKEN_TYPE", type)]
        if let expiresAt { lines.append(("LINKROUTER_EXPIRES_AT", String(expiresAt))) }
        if let scope { lines.append(("LINKROUTER_SCOPE", scope)) }
        var out = ""
        for (name, value) in lines { out += "export " + name + "=" + shellQuoted(value) + "\n" }
        return out
    }

    /// `'…'`, with each `'` written `'\''`: any text a provider sends is one word to the shell, never code.
    static func shellQuoted(_ text: String) -> String {
        var out = "'"
        for u in text.unicodeScalars {
            if u == "'" { out += "'\\''" } else { out.unicodeScalars.append(u) }
        }
        return out + "'"
    }
}
