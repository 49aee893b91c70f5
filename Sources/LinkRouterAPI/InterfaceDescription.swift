/// A D-Bus interface as data: the daemon checks call signatures against it,
/// renders introspection from it, and docs/dbus-api.md holds the same XML
/// (a test keeps the two equal).
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
        /// The signature a call must carry, e.g. `a{sv}`.
        public var inputSignature: String { input.map(\.type).joined() }
    }

    public struct Signal: Sendable, Equatable {
        public let name: String
        public let arguments: [Argument]
    }

    public struct Property: Sendable, Equatable {
        /// What `org.freedesktop.DBus.Property.EmitsChangedSignal` says.
        public enum Changes: String, Sendable { case emits = "true", const = "const" }
        public let name: String
        public let type: String
        public let changes: Changes
    }

    public let name: String
    public let methods: [Method]
    public let signals: [Signal]
    public let properties: [Property]

    public func method(_ name: String) -> Method? { methods.first { $0.name == name } }
    public func property(_ name: String) -> Property? { properties.first { $0.name == name } }
}
