/// One interface of one object as the `ObjectServer` serves it: its
/// description, and closures bound to whatever answers it (an
/// `InterfaceTable` row set with its handler and object).
public struct ServedInterface {
    public let description: InterfaceDescription
    /// Runs a call to the method at `position` in the description (its row in
    /// the table), whose signature was already checked against it.
    public let call: (_ position: Int, _ call: MethodCall) throws(DBusError) -> MethodReply
    /// The properties' current values, in the description's order.
    public let properties: () -> [(String, DBusValue)]

    public init(
        description: InterfaceDescription, call: @escaping (Int, MethodCall) throws(DBusError) -> MethodReply,
        properties: @escaping () -> [(String, DBusValue)]
    ) {
        self.description = description
        self.call = call
        self.properties = properties
    }
}

extension InterfaceTable {
    /// The table served by `handler` on `object`.
    public func serving(_ handler: Handler, _ object: Object) -> ServedInterface {
        ServedInterface(
            description: description,
            call: { position, call throws(DBusError) in try self.methods[position].handle(handler, object, call) },
            properties: { self.properties.map { ($0.name, $0.get(handler, object)) } })
    }
}
