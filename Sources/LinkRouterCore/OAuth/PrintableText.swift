/// Text from elsewhere (a provider's claims, an app's account names) as a
/// terminal shows it: every control character (C0, DEL, C1) written out as
/// `\u{XX}`, so such text can never be a command to the terminal (issue 36:
/// an app's own provider could otherwise put escapes on the host user's
/// terminal through `linkctl accounts`).
public enum PrintableText {
    /// C0, DEL and C1: what a terminal may take for a command.
    public static func isControl(_ u: Unicode.Scalar) -> Bool { u.value < 0x20 || (0x7F...0x9F).contains(u.value) }

    /// `text` with each control character written `\u{XX}`.
    public static func shown(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        for u in text.unicodeScalars {
            if isControl(u) { out += "\\u{" + String(u.value, radix: 16) + "}" } else { out.unicodeScalars.append(u) }
        }
        return out
    }
}
