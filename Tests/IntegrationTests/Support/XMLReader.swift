/// Just enough XML for introspection data: a prolog, a DOCTYPE without an
/// internal subset, comments, elements with quoted attributes (the five
/// predefined entities decoded) and whitespace between them. Anything else
/// (text, CDATA, processing instructions after the prolog, unbalanced tags)
/// is an error naming where it is, never skipped.
struct XMLReader {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    struct Element {
        let name: String
        let attributes: [String: String]
        var children: [Element] = []

        func attribute(_ key: String) throws -> String {
            guard let value = attributes[key] else { throw Failure("<\(name)> has no \(key)") }
            return value
        }

        /// Refuses an attribute outside `keys` (a misspelt `direction` would otherwise read as the default).
        func allow(_ keys: Set<String>) throws {
            if let odd = attributes.keys.sorted().first(where: { !keys.contains($0) }) {
                throw Failure("<\(name) name=\"\(attributes["name"] ?? "")\"> has an attribute \(odd)")
            }
        }
    }

    private let text: [UInt8]
    private var at = 0

    init(_ xml: String) { text = Array(xml.utf8) }

    /// The root element.
    mutating func document() throws -> Element {
        skipMisc(allowProlog: true)
        guard let root = try element() else { throw failure("no root element") }
        skipMisc(allowProlog: false)
        guard at == text.count else { throw failure("content after the root element") }
        return root
    }

    private func failure(_ what: String) -> Failure {
        let line = text[..<min(at, text.count)].filter { $0 == UInt8(ascii: "\n") }.count + 1
        return Failure("\(what) (line \(line))")
    }

    private func starts(_ s: String) -> Bool { text[at...].starts(with: s.utf8) }

    private mutating func skipSpace() {
        while at < text.count, [0x20, 0x09, 0x0A, 0x0D].contains(text[at]) { at += 1 }
    }

    /// Skips until after `end`; false when it never comes.
    private mutating func skip(past end: String) -> Bool {
        while at < text.count {
            if starts(end) {
                at += end.utf8.count
                return true
            }
            at += 1
        }
        return false
    }

    /// Whitespace, comments, and (before the root) the XML declaration and the DOCTYPE.
    private mutating func skipMisc(allowProlog: Bool) {
        while true {
            skipSpace()
            if starts("<!--") {
                guard skip(past: "-->") else { return }
            } else if allowProlog && starts("<?xml") {
                guard skip(past: "?>") else { return }
            } else if allowProlog && starts("<!DOCTYPE") {
                guard skip(past: ">") else { return }
            } else {
                return
            }
        }
    }

    private mutating func name() throws -> String {
        let start = at
        while at < text.count,
            text[at] == UInt8(ascii: ":") || text[at] == UInt8(ascii: "_") || text[at] == UInt8(ascii: "-")
                || text[at] == UInt8(ascii: ".") || (0x30...0x39).contains(text[at]) || (0x41...0x5A).contains(text[at])
                || (0x61...0x7A).contains(text[at])
        {
            at += 1
        }
        guard at > start else { throw failure("a name was expected") }
        return String(decoding: text[start..<at], as: UTF8.self)
    }

    /// One element and its children, or nil when the next thing is not a start tag.
    private mutating func element() throws -> Element? {
        guard starts("<"), !starts("</"), !starts("<!"), !starts("<?") else { return nil }
        at += 1
        let tag = try name()
        var attributes: [String: String] = [:]
        while true {
            skipSpace()
            if starts("/>") {
                at += 2
                return Element(name: tag, attributes: attributes)
            }
            if starts(">") {
                at += 1
                break
            }
            let key = try name()
            skipSpace()
            guard starts("=") else { throw failure("<\(tag)>: \(key) has no value") }
            at += 1
            skipSpace()
            guard at < text.count, text[at] == UInt8(ascii: "\"") || text[at] == UInt8(ascii: "'") else {
                throw failure("<\(tag)>: \(key)'s value is not quoted")
            }
            let quote = text[at]
            at += 1
            let start = at
            while at < text.count, text[at] != quote { at += 1 }
            guard at < text.count else { throw failure("<\(tag)>: \(key)'s value never ends") }
            guard attributes[key] == nil else { throw failure("<\(tag)>: \(key) twice") }
            attributes[key] = try Self.decode(String(decoding: text[start..<at], as: UTF8.self))
            at += 1
        }
        var node = Element(name: tag, attributes: attributes)
        while true {
            skipMisc(allowProlog: false)
            if starts("</") {
                at += 2
                let end = try name()
                skipSpace()
                guard end == tag, starts(">") else { throw failure("</\(end)> closes <\(tag)>") }
                at += 1
                return node
            }
            guard let child = try element() else { throw failure("text or an unknown construct inside <\(tag)>") }
            node.children.append(child)
        }
    }

    /// The predefined entities; a character reference or any other `&` is refused.
    private static func decode(_ raw: String) throws -> String {
        guard raw.contains("&") else { return raw }
        var out = ""
        var rest = Substring(raw)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            guard let semicolon = rest[amp...].firstIndex(of: ";") else { throw Failure("a bare & in \"\(raw)\"") }
            switch rest[rest.index(after: amp)..<semicolon] {
            case "lt": out += "<"
            case "gt": out += ">"
            case "amp": out += "&"
            case "quot": out += "\""
            case "apos": out += "'"
            case let other: throw Failure("entity &\(other); in \"\(raw)\"")
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return out + rest
    }
}
