/// A method or signal name.
///
/// The spec: "Must only contain the ASCII characters "[A-Z][a-z][0-9]_" and
/// may not begin with a digit. Must not contain the '.' (period) character.
/// Must not exceed the maximum name length. Must be at least 1 byte in length."
public struct MemberName: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init?(_ text: String) {
        guard Self.isValid(text) else { return nil }
        rawValue = text
    }

    public static func isValid(_ text: String) -> Bool {
        let u = Array(text.utf8)
        guard let first = u.first, u.count <= DBusNameRules.maxLength, !DBusNameRules.isDigit(first) else {
            return false
        }
        return u.allSatisfy(DBusNameRules.isElementByte)
    }

    public var description: String { rawValue }
}
