/// The freedesktop key-file format (Desktop Entry spec, "Basic format of the
/// file"), read and rewritten line by line so that editing `mimeapps.list`
/// keeps every comment and entry it does not touch.
public struct KeyFile: Sendable, Equatable {
    public enum Line: Sendable, Equatable {
        case other(String)
        case group(String)
        case entry(key: String, value: String)
    }

    public private(set) var lines: [Line]

    public init(parsing text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { raw in
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.hasPrefix("#") || trimmed.isEmpty { return .other(String(line)) }
            if trimmed.hasPrefix("["), let close = trimmed.lastIndex(of: "]") {
                return .group(String(trimmed[trimmed.index(after: trimmed.startIndex)..<close]))
            }
            if let eq = line.firstIndex(of: "=") {
                let key = line[..<eq].trimmingSpaces()
                let value = line[line.index(after: eq)...].drop { $0 == " " || $0 == "\t" }
                return .entry(key: String(key), value: String(value))
            }
            return .other(String(line))
        }
        if lines.last == .other("") { lines.removeLast() }
    }

    public init() { lines = [] }

    /// Names of the groups, in order, each once.
    public var groups: [String] {
        var seen: Set<String> = []
        var out: [String] = []
        for case .group(let g) in lines where seen.insert(g).inserted { out.append(g) }
        return out
    }

    /// The first value of `key` in `group` (a key repeated is an error in the
    /// spec; the first one wins, as GLib does).
    public func value(_ key: String, in group: String) -> String? {
        var current: String?
        for line in lines {
            switch line {
            case .group(let g): current = g
            case .entry(let k, let v) where current == group && k == key: return v
            default: continue
            }
        }
        return nil
    }

    /// All keys of `group`, in order.
    public func entries(in group: String) -> [(key: String, value: String)] {
        var current: String?
        var out: [(String, String)] = []
        for line in lines {
            switch line {
            case .group(let g): current = g
            case .entry(let k, let v) where current == group: out.append((k, v))
            default: continue
            }
        }
        return out
    }

    /// Sets `key` in `group`, replacing the first occurrence or appending
    /// (creating the group at the end if it is missing).
    public mutating func set(_ key: String, to value: String, in group: String) {
        var current: String?
        var lastLineOfGroup: Int?
        for (i, line) in lines.enumerated() {
            switch line {
            case .group(let g):
                current = g
                if g == group { lastLineOfGroup = i }
            case .entry(let k, _):
                if current == group {
                    if k == key {
                        lines[i] = .entry(key: key, value: value)
                        return
                    }
                    lastLineOfGroup = i
                }
            case .other(let text):
                if current == group && !text.isEmpty { lastLineOfGroup = i }
            }
        }
        if let at = lastLineOfGroup {
            lines.insert(.entry(key: key, value: value), at: at + 1)
        } else {
            if let last = lines.last, last != .other("") { lines.append(.other("")) }
            lines.append(.group(group))
            lines.append(.entry(key: key, value: value))
        }
    }

    /// Removes every occurrence of `key` in `group`.
    public mutating func remove(_ key: String, in group: String) {
        var current: String?
        lines = lines.filter { line in
            switch line {
            case .group(let g):
                current = g
                return true
            case .entry(let k, _):
                return !(current == group && k == key)
            case .other:
                return true
            }
        }
    }

    /// Removes `group`'s header when no entry is left in it (comments stay).
    /// A header at the end goes with the blank line `set` put before it, so
    /// a group added and emptied again leaves the text as it was.
    public mutating func removeGroupIfEmpty(_ group: String) {
        guard entries(in: group).isEmpty, let i = lines.firstIndex(of: .group(group)) else { return }
        lines.remove(at: i)
        if i == lines.count, i > 0, lines[i - 1] == .other("") { lines.remove(at: i - 1) }
        lines.removeAll { $0 == .group(group) }
    }

    public var text: String {
        lines.map { line in
            switch line {
            case .other(let t): return t
            case .group(let g): return "[" + g + "]"
            case .entry(let k, let v): return k + "=" + v
            }
        }.joined(separator: "\n") + "\n"
    }

    /// A `string`-typed value with the spec's escapes (`\s \n \t \r \\`) undone.
    public static func unescape(_ value: String) -> String {
        var out = ""
        var it = value.makeIterator()
        while let c = it.next() {
            guard c == "\\", let n = it.next() else {
                out.append(c)
                continue
            }
            switch n {
            case "s": out.append(" ")
            case "n": out.append("\n")
            case "t": out.append("\t")
            case "r": out.append("\r")
            case "\\": out.append("\\")
            default:
                out.append("\\")
                out.append(n)
            }
        }
        return out
    }

    /// The `strings`-typed value of `items` (`a;b;c;`), a `;` inside one written `\;`.
    public static func listValue(_ items: [String]) -> String {
        items.map { String($0.flatMap { $0 == ";" ? ["\\", ";"] : [$0] }) + ";" }.joined()
    }

    /// A `strings`-typed value (`a;b;c;`), with `\;` kept as a literal `;`.
    public static func list(_ value: String) -> [String] {
        var out: [String] = []
        var current = ""
        var escaped = false
        for c in value {
            if escaped {
                if c != ";" { current.append("\\") }
                current.append(c)
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else if c == ";" {
                out.append(current)
                current = ""
            } else {
                current.append(c)
            }
        }
        if !current.isEmpty { out.append(current) }
        return out.filter { !$0.isEmpty }
    }
}

extension Substring {
    func trimmingSpaces() -> Substring {
        var s = self
        while s.first == " " || s.first == "\t" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" { s = s.dropLast() }
        return s
    }
}
