/// Text put into XML or HTML: the introspection data and the loopback
/// listener's pages both go through this one escaper.
public enum Markup {
    /// Escapes the five characters XML and HTML give meaning to.
    public static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }
}
