/// Text put into XML or HTML: the introspection data, the loopback
/// listener's pages and notification bodies (Pango markup) all go through
/// this one escaper.
public enum Markup {
    /// Escapes the five characters XML and HTML give meaning to; with `quotes` false, only the three text content
    /// needs (`&`, `<`, `>`: a notification's body, where quotes are the person's to read as typed).
    public static func escape(_ s: String, quotes: Bool = true) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where quotes: out += "&quot;"
            case "'" where quotes: out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }
}
