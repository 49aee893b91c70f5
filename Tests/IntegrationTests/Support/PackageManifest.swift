/// The targets Package.swift declares, read from its text: the one list of
/// modules the docs and `scripts/check` are compared with (ModuleMapTests).
/// It reads the subset of Swift the manifest is written in (calls with
/// labelled arguments, arrays, string literals, `.member`s, comments) and
/// throws on anything else, so a manifest it cannot follow fails the test
/// instead of being read as fewer targets.
struct PackageManifest {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    enum Kind: String {
        case library = "target", executable = "executableTarget", system = "systemLibrary", test = "testTarget"
    }

    struct Target {
        let kind: Kind
        let name: String
        let dependencies: [String]
        /// Where its sources are: `path:`, or SwiftPM's default for its kind.
        let path: String
    }

    let targets: [Target]

    /// The library, executable and system library targets under `Sources/` (not bench, fuzz or tests).
    var sourceTargets: [Target] { targets.filter { $0.kind != .test && $0.path.hasPrefix("Sources/") } }

    init(_ text: String) throws {
        var parser = Parser(tokens: try Self.tokens(text))
        var package: Value?
        while parser.index < parser.tokens.count {
            if parser.tokens[parser.index] == .word("Package"), parser.peek(1) == .punct("(") {
                package = try parser.value()
            } else {
                parser.index += 1
            }
        }
        guard case .call(_, let arguments)? = package else { throw Failure("no Package(…) in Package.swift") }
        guard case .array(let entries)? = arguments.first(where: { $0.label == "targets" })?.value else {
            throw Failure("Package(…) has no targets: [ … ]")
        }
        targets = try entries.map { entry in
            guard case .call(let callee, let arguments) = entry, let kind = Kind(rawValue: callee) else {
                throw Failure("a targets entry is not .target, .executableTarget, .systemLibrary or .testTarget")
            }
            func string(_ label: String) throws -> String? {
                guard let value = arguments.first(where: { $0.label == label })?.value else { return nil }
                guard case .string(let s) = value else {
                    throw Failure(".\(callee)'s \(label) is not a string literal")
                }
                return s
            }
            guard let name = try string("name") else { throw Failure("a .\(callee) has no name") }
            var dependencies: [String] = []
            if let value = arguments.first(where: { $0.label == "dependencies" })?.value {
                guard case .array(let items) = value else { throw Failure("\(name)'s dependencies are not an array") }
                for item in items {
                    // .product(…) or .target(name:) would need reading too; none is used, so none is guessed at.
                    guard case .string(let dependency) = item else {
                        throw Failure("\(name) has a dependency that is not a string literal")
                    }
                    dependencies.append(dependency)
                }
            }
            let defaultPath = (kind == .test ? "Tests/" : "Sources/") + name
            return Target(kind: kind, name: name, dependencies: dependencies, path: try string("path") ?? defaultPath)
        }
    }

    /// A value of the manifest's subset of Swift.
    indirect enum Value: Equatable {
        case string(String)
        case array([Value])
        /// `Name(…)` or `.name(…)`, with each argument's label (nil when unlabelled).
        case call(String, [Argument])
        /// `.name` or `name`.
        case member(String)
    }

    struct Argument: Equatable {
        let label: String?
        let value: Value
    }

    enum Token: Equatable {
        case word(String)
        case string(String)
        case punct(Character)
    }

    static func tokens(_ text: String) throws -> [Token] {
        var tokens: [Token] = []
        let chars = Array(text)
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c.isWhitespace {
                i += 1
            } else if c == "/", i + 1 < chars.count, chars[i + 1] == "/" {
                while i < chars.count, chars[i] != "\n" { i += 1 }
            } else if c == "/", i + 1 < chars.count, chars[i + 1] == "*" {
                i += 2
                while i + 1 < chars.count, !(chars[i] == "*" && chars[i + 1] == "/") { i += 1 }
                i += 2
            } else if c == "\"" {
                var s = ""
                i += 1
                while i < chars.count, chars[i] != "\"" {
                    guard chars[i] != "\\" else { throw Failure("an escape in a string literal: not read here") }
                    s.append(chars[i])
                    i += 1
                }
                guard i < chars.count else { throw Failure("a string literal never ends") }
                i += 1
                tokens.append(.string(s))
            } else if c.isLetter || c.isNumber || c == "_" {
                var w = ""
                while i < chars.count, chars[i].isLetter || chars[i].isNumber || chars[i] == "_" {
                    w.append(chars[i])
                    i += 1
                }
                tokens.append(.word(w))
            } else {
                tokens.append(.punct(c))
                i += 1
            }
        }
        return tokens
    }

    struct Parser {
        let tokens: [Token]
        var index = 0

        func peek(_ offset: Int = 0) -> Token? {
            index + offset < tokens.count ? tokens[index + offset] : nil
        }

        mutating func expect(_ token: Token) throws {
            guard peek() == token else { throw Failure("expected \(token), found \(String(describing: peek()))") }
            index += 1
        }

        mutating func value() throws -> Value {
            switch peek() {
            case .string(let s)?:
                index += 1
                return .string(s)
            case .punct("[")?:
                index += 1
                var items: [Value] = []
                while peek() != .punct("]") {
                    items.append(try value())
                    if peek() == .punct(",") { index += 1 } else { break }
                }
                try expect(.punct("]"))
                return .array(items)
            case .punct(".")?:
                index += 1
                return try named()
            case .word?:
                return try named()
            default:
                throw Failure("unexpected \(String(describing: peek())) where a value was expected")
            }
        }

        private mutating func named() throws -> Value {
            guard case .word(let name)? = peek() else { throw Failure("a name was expected") }
            index += 1
            guard peek() == .punct("(") else { return .member(name) }
            index += 1
            var arguments: [Argument] = []
            while peek() != .punct(")") {
                var label: String?
                if case .word(let w)? = peek(), peek(1) == .punct(":") {
                    label = w
                    index += 2
                }
                arguments.append(Argument(label: label, value: try value()))
                if peek() == .punct(",") { index += 1 } else { break }
            }
            try expect(.punct(")"))
            return .call(name, arguments)
        }
    }
}
