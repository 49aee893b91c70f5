/// An interface name, also the grammar of error names.
///
/// The spec: "Interface names are composed of 2 or more elements separated by
/// a period ('.') character. All elements must contain at least one character.
/// Each element must only contain the ASCII characters "[A-Z][a-z][0-9]_" and
/// must not begin with a digit. Interface names must not exceed the maximum
/// name length." Error names "have the same restrictions as interface names".
public struct InterfaceName: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init?(_ text: String) {
        guard Self.isValid(text) else { return nil }
        rawValue = text
    }

    public static func isValid(_ text: String) -> Bool {
        DBusNameRules.isDotted(text, allowHyphen: false, digitsFirst: false)
    }

    public var description: String { rawValue }
}
