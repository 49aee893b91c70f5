/// Names written in the source are checked when first used: an invalid
/// literal is a programming error and traps, as swift-system's `FilePath`
/// does. Names from the wire always go through the failable initializers.
extension ObjectPath: ExpressibleByStringLiteral {
    public init(stringLiteral text: String) {
        guard let p = ObjectPath(text) else { preconditionFailure("invalid object path literal \(text)") }
        self = p
    }

    /// A path built from parts the caller has already validated (a session
    /// id is `[A-Za-z0-9_]+`, the element alphabet). Package-only: no app
    /// code can build an unchecked path.
    package init(trusted text: String) {
        assert(ObjectPath.isValid(text), "untrustworthy object path \(text)")
        self.init(uncheckedRawValue: text)
    }
}

extension BusName: ExpressibleByStringLiteral {
    public init(stringLiteral text: String) {
        guard let n = BusName(text) else { preconditionFailure("invalid bus name literal \(text)") }
        self = n
    }
}

extension InterfaceName: ExpressibleByStringLiteral {
    public init(stringLiteral text: String) {
        guard let n = InterfaceName(text) else { preconditionFailure("invalid interface name literal \(text)") }
        self = n
    }
}

extension MemberName: ExpressibleByStringLiteral {
    public init(stringLiteral text: String) {
        guard let n = MemberName(text) else { preconditionFailure("invalid member name literal \(text)") }
        self = n
    }
}

extension DBusSignature: ExpressibleByStringLiteral {
    public init(stringLiteral text: String) {
        guard let s = DBusSignature(text) else { preconditionFailure("invalid signature literal \(text)") }
        self = s
    }
}
