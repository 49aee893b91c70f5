/// An `Exec=` value could not be read by the spec's rules.
public struct ExecLineError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// The Desktop Entry spec's "The Exec key": quoting, escapes, field codes.
public enum ExecLine {
    /// One word of an Exec line, and whether it was quoted (field codes are
    /// expanded only in unquoted words, as the spec requires).
    public struct Word: Sendable, Equatable {
        public let text: String
        public let quoted: Bool
    }

    /// Splits an (already string-unescaped) Exec value into words.
    /// "Arguments are separated by a space… may be quoted using double quotes…
    /// Quoting must be done by enclosing the argument between double quotes and
    /// escaping the double quote character, backtick character ("`"), dollar
    /// sign ("$") and backslash character ("\") by preceding it with an
    /// additional backslash character."
    public static func split(_ exec: String) throws(ExecLineError) -> [Word] {
        var words: [Word] = []
        var current = ""
        var inWord = false
        var quoted = false
        var inQuotes = false
        var it = exec.makeIterator()
        while let c = it.next() {
            if inQuotes {
                if c == "\\" {
                    guard let n = it.next() else { throw ExecLineError("Exec ends inside an escape") }
                    guard n == "\"" || n == "`" || n == "$" || n == "\\" else {
                        throw ExecLineError("Exec has an invalid escape \\\(n) inside quotes")
                    }
                    current.append(n)
                } else if c == "\"" {
                    inQuotes = false
                } else {
                    current.append(c)
                }
            } else if c == " " || c == "\t" || c == "\n" {
                if inWord {
                    words.append(Word(text: current, quoted: quoted))
                    current = ""
                    inWord = false
                    quoted = false
                }
            } else if c == "\"" {
                inQuotes = true
                inWord = true
                quoted = true
            } else {
                current.append(c)
                inWord = true
            }
        }
        guard !inQuotes else { throw ExecLineError("Exec has an unterminated quote") }
        if inWord { words.append(Word(text: current, quoted: quoted)) }
        return words
    }

    /// The argv for opening one URL. `%u %U %f %F` become the URL (as one
    /// argument, never re-split), `%i` becomes `--icon ICON`, `%c` the name,
    /// `%k` the file's path, `%%` a percent sign; deprecated codes are dropped.
    /// With no URL field code the URL is appended, as xdg-open does.
    public static func expand(_ exec: String, url: String, name: String?, icon: String?, desktopFilePath: String)
        throws(ExecLineError) -> [String]
    {
        let words = try split(exec)
        guard !words.isEmpty else { throw ExecLineError("Exec is empty") }
        var argv: [String] = []
        var usedURL = false
        for word in words {
            if word.quoted {
                // Field codes are not expanded inside quotes; a literal percent is still "%%".
                argv.append(word.text.replacingPercentEscapes())
                continue
            }
            switch word.text {
            case "%u", "%U", "%f", "%F":
                guard !usedURL else { throw ExecLineError("Exec has more than one of %u %U %f %F") }
                usedURL = true
                argv.append(url)
                continue
            case "%i":
                if let icon, !icon.isEmpty { argv += ["--icon", icon] }
                continue
            default:
                break
            }
            var out = ""
            var it = word.text.makeIterator()
            var dropWord = false
            while let c = it.next() {
                guard c == "%" else {
                    out.append(c)
                    continue
                }
                guard let code = it.next() else { throw ExecLineError("Exec ends with a lone %") }
                switch code {
                case "%": out.append("%")
                case "u", "U", "f", "F":
                    guard !usedURL else { throw ExecLineError("Exec has more than one of %u %U %f %F") }
                    usedURL = true
                    out += url
                case "c": out += name ?? ""
                case "k": out += desktopFilePath
                case "i": out += icon ?? ""
                case "d", "D", "n", "N", "v", "m": dropWord = word.text.count == 2
                default: throw ExecLineError("Exec has an unknown field code %\(code)")
                }
            }
            if !dropWord { argv.append(out) }
        }
        if !usedURL { argv.append(url) }
        return argv
    }

    /// Quotes one argument for an Exec line: plain if it has no reserved
    /// character, else in double quotes with the four escapes.
    public static func quote(_ argument: String) -> String {
        let reserved: Set<Character> = [
            " ", "\t", "\n", "\"", "'", "\\", ">", "<", "~", "|", "&", ";", "$", "*", "?", "#", "(", ")", "`", "%",
        ]
        guard argument.contains(where: { reserved.contains($0) }) || argument.isEmpty else { return argument }
        var out = "\""
        for c in argument {
            if c == "\"" || c == "`" || c == "$" || c == "\\" { out.append("\\") }
            if c == "%" {
                out += "%%"
                continue
            }
            out.append(c)
        }
        return out + "\""
    }

    /// The key-file escape for a string value written into a `.desktop` file.
    public static func escapeForKeyFile(_ value: String) -> String {
        var out = ""
        for c in value {
            switch c {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default: out.append(c)
            }
        }
        return out
    }
}

extension String {
    func replacingPercentEscapes() -> String {
        var out = ""
        var it = makeIterator()
        while let c = it.next() {
            if c == "%", let n = it.next() {
                out.append(n == "%" ? "%" : c)
                if n != "%" { out.append(n) }
            } else {
                out.append(c)
            }
        }
        return out
    }
}
