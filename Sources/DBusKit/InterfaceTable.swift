/// An interface whose rows carry their handlers, as systemd's vtables do
/// (`SD_BUS_METHOD_WITH_ARGS` in hostnamed): adding a method is one row and
/// one requirement of `Handler`, and a daemon that lacks it does not compile.
/// `Object` is what the object the call reached is (a session for the
/// session interface).
public struct InterfaceTable<Handler, Object>: Sendable {
    public struct Method: Sendable {
        public let name: String
        public let input: [InterfaceDescription.Argument]
        public let output: [InterfaceDescription.Argument]
        /// Runs the call; its arguments already match `input`.
        public let handle: @Sendable (Handler, Object, MethodCall) throws(DBusError) -> MethodReply

        public init(
            _ name: String, in input: [InterfaceDescription.Argument], out output: [InterfaceDescription.Argument],
            _ handle: @escaping @Sendable (Handler, Object, MethodCall) throws(DBusError) -> MethodReply
        ) {
            self.name = name
            self.input = input
            self.output = output
            self.handle = handle
        }
    }

    public struct Property: Sendable {
        public let name: String
        public let type: String
        public let changes: InterfaceDescription.Property.Changes
        /// Reads the property from the object, or from the handler for what only it knows.
        public let get: @Sendable (Handler, Object) -> DBusValue

        public init(
            _ name: String, _ type: String, _ changes: InterfaceDescription.Property.Changes,
            _ get: @escaping @Sendable (Handler, Object) -> DBusValue
        ) {
            self.name = name
            self.type = type
            self.changes = changes
            self.get = get
        }
    }

    public let name: InterfaceName
    public let methods: [Method]
    public let signals: [InterfaceDescription.Signal]
    public let properties: [Property]

    /// The interface as data, for introspection and for clients (made once: it is read on every call).
    public let description: InterfaceDescription

    public init(
        name: InterfaceName, methods: [Method], signals: [InterfaceDescription.Signal] = [], properties: [Property] = []
    ) {
        self.name = name
        self.methods = methods
        self.signals = signals
        self.properties = properties
        description = InterfaceDescription(
            name: name.rawValue,
            methods: methods.map { .init(name: $0.name, input: $0.input, output: $0.output) },
            signals: signals,
            properties: properties.map { .init(name: $0.name, type: $0.type, changes: $0.changes) })
    }

    public func method(_ name: String) -> Method? { description.methodPosition(name).map { methods[$0] } }
}
