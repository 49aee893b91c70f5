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

    /// Unique names follow libdbus (which the bus daemon enforces): after the
    /// colon, name characters with single dots between them; libdbus does
    /// not require the dot the spec text asks for.
    public static func isValid(_ text: String) -> Bool {
        let u = Array(text.utf8)
        guard !u.isEmpty, u.count <= DBusNameRules.maxLength else { return false }
        guard u[0] == 0x3A else { return DBusNameRules.isDotted(text, allowHyphen: true, digitsFirst: false) }
        var i = 1
        while i < u.count {
            if u[i] == 0x2E {
                guard i + 1 < u.count, isNameByte(u[i + 1]) else { return false }
                i += 2
            } else {
                guard isNameByte(u[i]) else { return false }
                i += 1
            }
        }
        return true
    }

    private static func isNameByte(_ b: UInt8) -> Bool { DBusNameRules.isElementByte(b) || b == 0x2D }

    public var description: String { rawValue }
}
