/// A D-Bus object path, valid by construction.
///
/// The spec: "The path must begin with an ASCII '/' character, and must
/// consist of elements separated by slash characters. Each element must only
/// contain the ASCII characters "[A-Z][a-z][0-9]_". No element may be the
/// empty string. Multiple '/' characters cannot occur in sequence. A trailing
/// '/' character is not allowed unless the path is the root path."
public struct ObjectPath: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init?(_ text: String) {
        guard Self.isValid(text) else { return nil }
        rawValue = text
    }

    init(uncheckedRawValue: String) { rawValue = uncheckedRawValue }

    /// The path of a child object, if `element` is a valid path element.
    public func appending(_ element: String) -> ObjectPath? {
        ObjectPath(rawValue == "/" ? "/" + element : rawValue + "/" + element)
    }

    public static func isValid(_ text: String) -> Bool {
        let u = Array(text.utf8)
        guard u.first == 0x2F else { return false }
        if u.count == 1 { return true }
        guard u.last != 0x2F else { return false }
        var previousSlash = true
        for b in u.dropFirst() {
            if b == 0x2F {
                if previousSlash { return false }
                previousSlash = true
            } else {
                guard DBusNameRules.isElementByte(b) else { return false }
                previousSlash = false
            }
        }
        return true
    }

    public static let root: ObjectPath = "/"

    public var description: String { rawValue }

    /// The path's elements (`/a/b` → `["a", "b"]`).
    public var elements: [Substring] { rawValue.split(separator: "/") }
}
