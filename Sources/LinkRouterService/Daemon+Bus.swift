import DBusKit
import LinkRouterAPI
import LinkRouterCore
import SystemKit

/// The D-Bus edge: which object, which interface, which row of its table;
/// the call's signature checked against the row; errors mapped to their
/// stable names. Every path ends in exactly one reply (unless the caller
/// asked for none, or the handler keeps the call to answer later).
extension Daemon {
    /// The objects the daemon serves.
    enum Object {
        case manager
        case session(Session)
        /// An inner node of the tree (`/`, `/org`, …, `…/sessions`), introspectable only.
        case node(children: [String])
    }

    func handle(_ message: DBusMessage) -> DBusConnection.Handling {
        switch message.kind {
        case .signal:
            handleBusSignal(message)
            return .notHandled
        case .methodCall:
            break
        case .methodReturn, .error:
            handleReply(message)
            return .notHandled
        default:
            return .notHandled
        }
        do {
            switch try dispatch(message) {
            case .values(let values): reply(to: message, values: values)
            case .deferred: break
            }
        } catch {
            reply(to: message, error: error)
        }
        return .handled
    }

    func object(at path: String) -> Object? {
        switch path {
        case API.managerPath.rawValue: return .manager
        case "/": return .node(children: ["org"])
        case "/org": return .node(children: ["linkrouter"])
        case "/org/linkrouter": return .node(children: ["LinkRouter1"])
        case API.sessionsPath.rawValue: return .node(children: router.all.map(\.id).sorted().map(\.rawValue))
        default:
            guard let id = API.sessionID(at: path), let s = router.session(id) else { return nil }
            return .session(s)
        }
    }

    /// The interfaces an object carries, as data (introspection, lookup by name).
    func interfaces(of object: Object) -> [InterfaceDescription] {
        switch object {
        case .manager: return Interfaces.onManager
        case .session: return Interfaces.onSession
        case .node: return Self.nodeInterfaces
        }
    }

    static let nodeInterfaces = [Interfaces.peer, Interfaces.introspectable]

    func dispatch(_ m: DBusMessage) throws(DBusError) -> MethodReply {
        guard let path = m.path, let member = m.member, let sender = m.sender else {
            throw DBusError(name: DBusError.invalidArgs, message: "a method call needs a path, a member and a sender")
        }
        guard let object = object(at: path) else {
            throw DBusError(name: DBusError.unknownObject, message: "no object at \(path); sessions live under \(API.sessionsPath) until they are purged")
        }
        let candidates = interfaces(of: object)
        let interface: InterfaceDescription
        if let name = m.interface {
            guard let i = candidates.first(where: { $0.name == name }) else {
                throw DBusError(name: DBusError.unknownInterface, message: "\(path) has no interface \(name)")
            }
            interface = i
        } else {
            guard let i = candidates.first(where: { $0.method(member) != nil }) else {
                throw DBusError(name: DBusError.unknownMethod, message: "\(path) has no method \(member)")
            }
            interface = i
        }
        guard let method = interface.method(member) else {
            throw DBusError(name: DBusError.unknownMethod, message: "\(interface.name) has no method \(member)")
        }
        guard m.signature == method.inputSignature else {
            throw DBusError(name: DBusError.invalidArgs, message: "\(interface.name).\(member) takes (\(method.inputSignature)), not (\(m.signature))")
        }
        let call = MethodCall(message: m, sender: sender, arguments: try m.arguments())
        switch (interface.name, object) {
        // A table's description lists its rows in the table's order.
        case (Interfaces.manager.name, .manager):
            if let i = Interfaces.manager.methods.firstIndex(where: { $0.name == member }) { return try Interfaces.managerTable.methods[i].handle(self, (), call) }
        case (Interfaces.session.name, .session(let s)):
            if let i = Interfaces.session.methods.firstIndex(where: { $0.name == member }) { return try Interfaces.sessionTable.methods[i].handle(self, s, call) }
        case (API.introspectableInterface.rawValue, _):
            return .values([.string(introspect(object))])
        case (API.peerInterface.rawValue, _):
            // libdbus answers Peer itself; reached only if it did not.
            return member == "Ping" ? .values([]) : .values([.string(machineID())])
        case (API.propertiesInterface.rawValue, _):
            return .values(try properties(member, call.arguments, object))
        default:
            break
        }
        throw DBusError(name: DBusError.unknownMethod, message: "\(interface.name).\(member) is not available on \(path)")
    }

    /// `org.freedesktop.DBus.Properties`, read from the tables' getters.
    /// The properties hold nothing secret, so anyone may read them.
    func properties(_ member: String, _ args: [DBusValue], _ object: Object) throws(DBusError) -> [DBusValue] {
        let interfaceName = args.first?.stringValue ?? ""
        let table = propertyValues(object)
        if !interfaceName.isEmpty && !table.contains(where: { $0.interface == interfaceName }) {
            throw DBusError(name: DBusError.unknownInterface, message: "this object has no properties on interface \(interfaceName)")
        }
        let name = args.count > 1 ? args[1].stringValue ?? "" : ""
        switch member {
        case "Get":
            for (iface, props) in table where interfaceName.isEmpty || iface == interfaceName {
                if let v = props.first(where: { $0.0 == name })?.1 { return [.variant(v)] }
            }
            throw DBusError(name: DBusError.unknownProperty, message: "no property \(name) on \(interfaceName.isEmpty ? "this object" : interfaceName)")
        case "GetAll":
            return [.vardict(table.filter { interfaceName.isEmpty || $0.interface == interfaceName }.flatMap(\.values))]
        case "Set":
            let known = table.contains { $0.values.contains { $0.0 == name } }
            throw DBusError(name: known ? DBusError.propertyReadOnly : DBusError.unknownProperty,
                            message: known ? "\(name) is read-only" : "no property \(name)")
        default:
            throw DBusError(name: DBusError.unknownMethod, message: "no method Properties.\(member)")
        }
    }

    func propertyValues(_ object: Object) -> [(interface: String, values: [(String, DBusValue)])] {
        switch object {
        case .manager:
            let t = Interfaces.managerTable
            return [(t.name.rawValue, t.properties.map { ($0.name, $0.get(self, ())) })]
        case .session(let s):
            let t = Interfaces.sessionTable
            return [(t.name.rawValue, t.properties.map { ($0.name, $0.get(self, s)) })]
        case .node:
            return []
        }
    }

    func introspect(_ object: Object) -> String {
        switch object {
        case .manager: return Introspection.manager
        case .session: return Introspection.session
        case .node(let children): return Introspection.xml(interfaces: interfaces(of: object), children: children)
        }
    }

    func machineID() -> String {
        ((try? FileSystem.readText("/etc/machine-id", maxBytes: 64)) ?? "").filter { $0.isHexDigit }
    }

    /// Signals from the bus daemon: a client left (its sessions are parked or
    /// cancelled, its waits dropped), or our own connection dropped.
    func handleBusSignal(_ m: DBusMessage) {
        if m.isSignal(interface: "org.freedesktop.DBus.Local", member: "Disconnected") {
            Log.error("Disconnected from the bus; stopping (D-Bus activation or systemd will start linkrouterd again)")
            exitStatus = 1
            loop.stop()
            return
        }
        guard m.sender == "org.freedesktop.DBus", m.isSignal(interface: "org.freedesktop.DBus", member: "NameOwnerChanged"),
              let args = try? m.arguments(), args.count == 3, case .string(let name) = args[0], case .string(let newOwner) = args[2],
              name.hasPrefix(":"), newOwner.isEmpty else { return }
        if awaitingDiscovery[name] != nil { leftDuringDiscovery.insert(name) }
        _ = try? execute(router.ownerGone(name, now: now))
    }
}
