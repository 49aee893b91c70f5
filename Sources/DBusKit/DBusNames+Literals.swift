/// Names written in the source are checked when first used: an invalid
/// literal is a programming error and traps, as swift-system's `FilePath`
/// does. Names from the wire always go through the failable initializers.
public protocol CheckedLiteral: ExpressibleByStringLiteral {
    init?(_ text: String)
}

extension CheckedLiteral {
    public init(stringLiteral text: String) {
        guard let value = Self(text) else { preconditionFailure("invalid \(Self.self) literal \(text)") }
        self = value
    }
}

extension ObjectPath: CheckedLiteral {
    /// A path built from parts the caller has already validated (a session
    /// id is `[A-Za-z0-9_]+`, the element alphabet). Package-only: no app
    /// code can build an unchecked path.
    package init(trusted text: String) {
        assert(ObjectPath.isValid(text), "untrustworthy object path \(text)")
        self.init(uncheckedRawValue: text)
    }
}

extension BusName: CheckedLiteral {}
extension InterfaceName: CheckedLiteral {}
extension MemberName: CheckedLiteral {}
extension DBusSignature: CheckedLiteral {}
