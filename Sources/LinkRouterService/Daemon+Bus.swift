import DBusKit
import LinkRouterAPI
import LinkRouterCore
import SystemKit

/// The D-Bus edge: which object, which interface, which method; signature
/// checks against the interface table; errors mapped to their stable names.
/// Every path ends in exactly one reply (unless the caller asked for none).
extension Daemon {
    /// The objects the daemon serves.
    enum Object {
        case manager
        case session(SessionID)
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
        case API.managerPath: return .manager
        case "/": return .node(children: ["org"])
        case "/org": return .node(children: ["linkrouter"])
        case "/org/linkrouter": return .node(children: ["LinkRouter1"])
        case API.sessionsPath: return .node(children: router.all.map(\.id).sorted().map(\.rawValue))
        default:
            guard let id = SessionID(objectPath: path), router.session(id) != nil else { return nil }
            return .session(id)
        }
    }

    func interfaces(of object: Object) -> [InterfaceDescription] {
        switch object {
        case .manager: return Interfaces.standard + [Interfaces.manager]
        case .session: return Interfaces.standard + [Interfaces.session]
        case .node: return [Interfaces.peer, Interfaces.introspectable]
        }
    }

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
        let args = try m.arguments()
        switch (interface.name, member, object) {
        case (API.introspectableInterface, "Introspect", _):
            return .values([.string(introspect(object))])
        case (API.peerInterface, _, _):
            // libdbus answers Peer itself; reached only if it did not.
            return member == "Ping" ? .values([]) : .values([.string(machineID())])
        case (API.propertiesInterface, _, _):
            return .values(try properties(member, args, object))
        case (API.managerInterface, "BeginSession", _):
            return .values(try beginSession(args[0], sender: sender))
        case (API.managerInterface, "Route", _):
            return .values([.string(try route(args[0].stringValue ?? "", sender: sender))])
        case (API.managerInterface, "Explain", _):
            let (outcome, reason) = explain(args[0].stringValue ?? "")
            return .values([.string(outcome), .string(reason)])
        case (API.managerInterface, "ListSessions", _):
            return .values([listSessions(router.sessions(ownedBy: sender), withOwner: false)])
        case (API.managerInterface, "ListAllSessions", _):
            let all = router.all.sorted { $0.createdAt == $1.createdAt ? $0.id < $1.id : $0.createdAt < $1.createdAt }
            return .values([listSessions(all, withOwner: true)])
        case (API.sessionInterface, "Wait", .session(let id)):
            guard case .uint32(let timeout) = args[0] else { throw DBusError(name: DBusError.invalidArgs, message: "Wait takes (u)") }
            return try wait(id, timeoutMilliseconds: timeout, call: m, sender: sender)
        case (API.sessionInterface, "Cancel", .session(let id)):
            try cancel(id, sender: sender)
            return .values([])
        case (API.sessionInterface, "Claim", .session(let id)):
            try claim(id, token: args[0].stringValue ?? "", sender: sender)
            return .values([])
        default:
            throw DBusError(name: DBusError.unknownMethod, message: "\(interface.name).\(member) is not available on \(path)")
        }
    }

    func listSessions(_ sessions: [Session], withOwner: Bool) -> DBusValue {
        let type = DBusSignature(withOwner ? "(osss)" : "(oss)")!
        return .array(element: type, sessions.map { s in
            var fields: [DBusValue] = [.objectPath(ObjectPath(s.id.objectPath)!), .string(s.status.rawValue), .string(s.redirect.string)]
            if withOwner { fields.append(.string(s.owner ?? "")) }
            return .structure(fields)
        })
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
        ownerLeft(name)
    }
}
