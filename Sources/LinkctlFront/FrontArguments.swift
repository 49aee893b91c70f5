/// A verb's arguments as the full linkctl's parser reads them, for the forms
/// the front serves: `--name value` and `--name=value` for an option, `--name`
/// alone for a flag, anything that does not begin with `-` an operand. Each
/// option and flag is given once unless it is `repeatable`. Nil for anything
/// else (an unknown option, `-x`, a missing value, a flag given a value, a
/// repeat): the front then hands the whole line to the full linkctl, which
/// says what is wrong.
struct FrontArguments {
    /// The options and flags given, in order; a flag's value is nil.
    private(set) var given: [(name: String, value: String?)] = []
    private(set) var operands: [String] = []

    init?(_ arguments: ArraySlice<String>, options: [String], flags: [String] = [], repeatable: [String] = []) {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("--") else {
                guard argument.utf8.first != 0x2D else { return nil }
                operands.append(argument)
                continue
            }
            var name = String(argument.dropFirst(2))
            var value: String?
            if let eq = name.utf8.firstIndex(of: 0x3D) {
                value = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            guard repeatable.contains(name) || !given.contains(where: { $0.name == name }) else { return nil }
            if flags.contains(name) {
                guard value == nil else { return nil }
            } else {
                guard options.contains(name) else { return nil }
                if value == nil { value = rest.popFirst() }
                guard value != nil else { return nil }
            }
            given.append((name, value))
        }
    }

    /// The first value given for `name`.
    func value(_ name: String) -> String? { given.first { $0.name == name }?.value }

    /// Whether the flag `name` was given.
    func has(_ name: String) -> Bool { given.contains { $0.name == name } }
}
