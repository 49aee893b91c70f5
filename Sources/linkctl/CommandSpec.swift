/// One verb of linkctl, declared as data: its help, its options and how many
/// operands it takes are checked before `run` is ever called (the
/// swift-argument-parser shape: validate apart from run).
struct CommandSpec: Sendable {
    struct Option: Sendable {
        let name: String
        /// Nil for a flag; otherwise the value's placeholder in help.
        let value: String?
        let repeatable: Bool
        let help: String

        static func flag(_ name: String, _ help: String) -> Option {
            Option(name: name, value: nil, repeatable: false, help: help)
        }
        static func value(_ name: String, _ placeholder: String, _ help: String, repeatable: Bool = false) -> Option {
            Option(name: name, value: placeholder, repeatable: repeatable, help: help)
        }
    }

    let name: String
    let summary: String
    /// Operand placeholders for the usage line, e.g. `SESSION`.
    let operands: String
    let operandCount: ClosedRange<Int>
    let options: [Option]
    let details: String
    let run: @Sendable (ParsedArguments) -> Int32

    var usage: String {
        "linkctl \(name)" + (options.isEmpty ? "" : " [OPTION…]") + (operands.isEmpty ? "" : " " + operands)
    }

    var help: String {
        var out = "Usage: \(usage)\n\n\(summary)\n"
        if !details.isEmpty { out += "\n" + details + "\n" }
        let all = options + [.flag("help", "show this help and exit")]
        let shown = all.map { "--" + $0.name + ($0.value.map { " " + $0 } ?? "") }
        let width = shown.map(\.count).max() ?? 0
        out += "\nOptions:\n"
        for (o, s) in zip(all, shown) {
            out +=
                "  " + s + String(repeating: " ", count: width - s.count + 2) + o.help
                + (o.repeatable ? " (repeatable)" : "") + "\n"
        }
        return out
    }
}

/// A command line after parsing.
struct ParsedArguments: Sendable {
    var operands: [String] = []
    var values: [String: [String]] = [:]
    var flags: Set<String> = []

    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }
    func has(_ name: String) -> Bool { flags.contains(name) }
    var json: Bool { has("json") }
}

/// A usage error: printed with a hint, exit 64.
struct UsageError: Error {
    let message: String
}

extension CommandSpec {
    /// `--name value`, `--name=value`, flags, and `--` ending the options.
    func parse(_ args: [String]) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var i = 0
        var optionsEnded = false
        while i < args.count {
            let arg = args[i]
            i += 1
            if optionsEnded || !arg.hasPrefix("-") || arg == "-" {
                parsed.operands.append(arg)
                continue
            }
            if arg == "--" {
                optionsEnded = true
                continue
            }
            guard arg.hasPrefix("--") else { throw UsageError(message: "unknown option \(arg)") }
            var name = String(arg.dropFirst(2))
            var inline: String?
            if let eq = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            guard let option = options.first(where: { $0.name == name }) else {
                throw UsageError(message: "unknown option --\(name)")
            }
            if option.value == nil {
                guard inline == nil else { throw UsageError(message: "--\(name) takes no value") }
                parsed.flags.insert(name)
                continue
            }
            let value: String
            if let inline {
                value = inline
            } else {
                guard i < args.count else { throw UsageError(message: "--\(name) needs a value (\(option.value!))") }
                value = args[i]
                i += 1
            }
            if !option.repeatable && parsed.values[name] != nil {
                throw UsageError(message: "--\(name) is given twice")
            }
            parsed.values[name, default: []].append(value)
        }
        guard operandCount.contains(parsed.operands.count) else {
            if operandCount.upperBound == 0 { throw UsageError(message: "\(name) takes no operands") }
            if parsed.operands.count < operandCount.lowerBound {
                throw UsageError(message: "\(name) needs \(operands)")
            }
            throw UsageError(
                message:
                    "\(name) takes \(operandCount.upperBound == 1 ? "one operand" : "at most \(operandCount.upperBound) operands") (\(operands)), not \(parsed.operands.count)"
            )
        }
        return parsed
    }
}
