/// A D-Bus interface as data: what introspection renders and clients read.
/// linkrouter's own interfaces are `InterfaceTable`s (rows with handlers)
/// and give this through `.description`; docs/org.linkrouter.LinkRouter1.xml
/// and docs/dbus-api.md hold the same XML (tests keep them equal).
public struct InterfaceDescription: Sendable, Equatable {
    public struct Argument: Sendable, Equatable {
        public let name: String
        public let type: String
        public init(_ name: String, _ type: String) {
            self.name = name
            self.type = type
        }
    }

    public struct Method: Sendable, Equatable {
        public let name: String
        public let input: [Argument]
        public let output: [Argument]

        /// The signature a call must carry, e.g. `a{sv}` (kept: it is checked on every call).
        public let inputSignature: String

        public init(name: String, input: [Argument], output: [Argument]) {
            self.name = name
            self.input = input
            self.output = output
            self.inputSignature = input.map(\.type).joined()
        }

    }

    public struct Signal: Sendable, Equatable {
        public let name: String
        public let arguments: [Argument]

        public init(name: String, arguments: [Argument]) {
            self.name = name
            self.arguments = arguments
        }
    }

    public struct Property: Sendable, Equatable {
        /// What `org.freedesktop.DBus.Property.EmitsChangedSignal` says.
        public enum Changes: String, Sendable {
            case emits = "true", const = "const"
            /// Changes, but too often to signal (read it when you need it).
            case unsignalled = "false"
        }
        public let name: String
        public let type: String
        public let changes: Changes

        public init(name: String, type: String, changes: Changes) {
            self.name = name
            self.type = type
            self.changes = changes
        }
    }

    public let name: String
    public let methods: [Method]
    public let signals: [Signal]
    public let properties: [Property]
    /// Where each method is in `methods`: every call is looked up here (a walk
    /// comparing names was ~3 k instructions a `Route`, bench: per Route).
    private let methodIndex: [String: Int]

    public init(name: String, methods: [Method], signals: [Signal], properties: [Property]) {
        self.name = name
        self.methods = methods
        self.signals = signals
        self.properties = properties
        methodIndex = Dictionary(methods.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The position of method `name` in `methods`, which is also its row's in an `InterfaceTable`.
    public func methodPosition(_ name: String) -> Int? { methodIndex[name] }

    public func method(_ name: String) -> Method? { methodIndex[name].map { methods[$0] } }

    public static func == (a: InterfaceDescription, b: InterfaceDescription) -> Bool {
        a.name == b.name && a.methods == b.methods && a.signals == b.signals && a.properties == b.properties
    }
}
