/// A bus name, unique (`:1.42`) or well-known (`org.linkrouter.LinkRouter1`).
///
/// The spec: "Bus names that start with a colon (':') character are unique
/// connection names. Other bus names are called well-known bus names. Bus
/// names must contain at least one '.' character separating two elements.
/// Each element must only contain the ASCII characters "[A-Z][a-z][0-9]_-",
/// with "-" discouraged in new bus names. Only elements that are part of a
/// unique connection name may begin with a digit. Bus names must not exceed
/// the maximum name length (255)."
public struct BusName: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init?(_ text: String) {
        guard Self.isValid(text) else { return nil }
        rawValue = text
    }

    public static func isValid(_ text: String) -> Bool {
        if text.hasPrefix(":") {
            return DBusNameRules.isDotted(String(text.dropFirst()), allowHyphen: true, digitsFirst: true) && text.utf8.count <= 255
        }
        return DBusNameRules.isDotted(text, allowHyphen: true, digitsFirst: false)
    }

    public var isUnique: Bool { rawValue.hasPrefix(":") }
    public var description: String { rawValue }
}
