/// The objects a service exports, as a registry from object paths to the
/// interfaces each carries (zbus's `ObjectServer`): an object or an interface
/// is a row, not an arm of a switch. It dispatches a method call to the row
/// of its object and interface, checks the call's signature against the
/// row, and answers the standard interfaces (Introspectable, Properties,
/// Peer) itself; inner nodes of the tree are introspectable.
public final class ObjectServer {
    /// The objects at fixed paths.
    private var objects: [String: [ServedInterface]] = [:]
    /// Objects under a path that come and go (`…/sessions/<id>`): the children
    /// there now, and the interfaces of one by its last element.
    private struct Subtree {
        let path: String
        let children: () -> [String]
        let resolve: (String) -> [ServedInterface]?
        /// What an unknown child is said to be, in the error.
        let missing: String
    }
    private var subtrees: [Subtree] = []
    /// `Peer.GetMachineId`'s answer (libdbus answers `Peer` itself; this is the fallback).
    public var machineID: () -> String = { "" }

    public init() {}

    /// Serves `interfaces` at `path` (replacing what was there).
    public func register(_ path: ObjectPath, _ interfaces: [ServedInterface]) {
        objects[path.rawValue] = interfaces
    }

    /// Serves the children of `path`: `children()` lists their last elements,
    /// `resolve` gives one's interfaces (nil: no such object, and `missing` says why).
    public func registerSubtree(
        _ path: ObjectPath, missing: String, children: @escaping () -> [String],
        resolve: @escaping (String) -> [ServedInterface]?
    ) {
        subtrees.append(Subtree(path: path.rawValue, children: children, resolve: resolve, missing: missing))
    }

    /// What lives at `path`: an object's interfaces, or an inner node (its
    /// children are listed only when introspected: a call costs no listing).
    enum Node {
        case object([ServedInterface])
        case inner

        var isObject: Bool { if case .object = self { true } else { false } }
    }

    func node(at path: String) throws(DBusError) -> Node {
        if let interfaces = objects[path] { return .object(interfaces) }
        for t in subtrees where path.hasPrefix(t.path + "/") {
            let element = String(path.dropFirst(t.path.count + 1))
            guard !element.contains("/"), let interfaces = t.resolve(element) else {
                throw DBusError(name: DBusError.unknownObject, message: "no object at \(path); \(t.missing)")
            }
            return .object(interfaces)
        }
        if !subtrees.contains(where: { $0.path == path }) && children(of: path).isEmpty {
            throw DBusError(name: DBusError.unknownObject, message: "no object at \(path)")
        }
        return .inner
    }

    /// The next elements below `path` of every registered path, and a subtree's children.
    func children(of path: String) -> [String] {
        var out: [String] = []
        if let t = subtrees.first(where: { $0.path == path }) { out = t.children() }
        let prefix = path == "/" ? "/" : path + "/"
        for p in objects.keys.sorted() + subtrees.map(\.path) where p.hasPrefix(prefix) {
            let next = String(p.dropFirst(prefix.count).prefix { $0 != "/" })
            if !next.isEmpty && !out.contains(next) { out.append(next) }
        }
        return out
    }

    /// Runs one method call: its object, its interface (named, or the first
    /// that has the member), the row's signature, then the row or a standard interface.
    public func dispatch(_ m: DBusMessage) throws(DBusError) -> MethodReply {
        guard let path = m.path, let member = m.member, let sender = m.sender else {
            throw DBusError(name: DBusError.invalidArgs, message: "a method call needs a path, a member and a sender")
        }
        let node = try node(at: path)
        let served: [ServedInterface]
        switch node {
        case .object(let s): served = s
        case .inner: served = []
        }
        // An inner node is only introspectable (and pingable); objects carry Properties too.
        // Looked up in place, standard interfaces first: no array is made for a call.
        let standard = node.isObject ? StandardInterfaces.all : StandardInterfaces.innerNode
        let description: InterfaceDescription
        var target: ServedInterface?
        if let name = m.interface {
            if let d = standard.first(where: { $0.name == name }) {
                description = d
            } else if let s = served.first(where: { $0.description.name == name }) {
                description = s.description
                target = s
            } else {
                throw DBusError(name: DBusError.unknownInterface, message: "\(path) has no interface \(name)")
            }
        } else if let d = standard.first(where: { $0.methodPosition(member) != nil }) {
            description = d
        } else if let s = served.first(where: { $0.description.methodPosition(member) != nil }) {
            description = s.description
            target = s
        } else {
            throw DBusError(name: DBusError.unknownMethod, message: "\(path) has no method \(member)")
        }
        guard let position = description.methodPosition(member) else {
            throw DBusError(name: DBusError.unknownMethod, message: "\(description.name) has no method \(member)")
        }
        let method = description.methods[position]
        guard m.signature == method.inputSignature else {
            throw DBusError(
                name: DBusError.invalidArgs,
                message: "\(description.name).\(member) takes (\(method.inputSignature)), not (\(m.signature))")
        }
        let call = MethodCall(message: m, sender: sender, arguments: try m.arguments())
        if let target { return try target.call(position, call) }
        switch description.name {
        case StandardInterfaces.introspectableName.rawValue:
            return .values([
                .string(
                    IntrospectionXML.xml(interfaces: standard + served.map(\.description), children: children(of: path))
                )
            ])
        case StandardInterfaces.peerName.rawValue:
            return member == "Ping" ? .values([]) : .values([.string(machineID())])
        case StandardInterfaces.propertiesName.rawValue:
            return .values(try properties(member, call.arguments, served))
        default:
            throw DBusError(name: DBusError.unknownInterface, message: "\(path) has no interface \(description.name)")
        }
    }

    /// `org.freedesktop.DBus.Properties` over the served interfaces' getters (all read-only).
    func properties(_ member: String, _ args: [DBusValue], _ served: [ServedInterface]) throws(DBusError) -> [DBusValue]
    {
        let interfaceName = args.first?.stringValue ?? ""
        if !interfaceName.isEmpty && !served.contains(where: { $0.description.name == interfaceName }) {
            throw DBusError(
                name: DBusError.unknownInterface, message: "this object has no properties on interface \(interfaceName)"
            )
        }
        let chosen = served.filter { interfaceName.isEmpty || $0.description.name == interfaceName }
        let name = args.count > 1 ? args[1].stringValue ?? "" : ""
        switch member {
        case "Get":
            for s in chosen where s.description.properties.contains(where: { $0.name == name }) {
                if let v = s.properties().first(where: { $0.0 == name })?.1 { return [.variant(v)] }
            }
            throw DBusError(
                name: DBusError.unknownProperty,
                message: "no property \(name) on \(interfaceName.isEmpty ? "this object" : interfaceName)")
        case "GetAll":
            return [.vardict(chosen.flatMap { $0.properties() })]
        case "Set":
            let known = served.contains { $0.description.properties.contains { $0.name == name } }
            throw DBusError(
                name: known ? DBusError.propertyReadOnly : DBusError.unknownProperty,
                message: known ? "\(name) is read-only" : "no property \(name)")
        default:
            throw DBusError(name: DBusError.unknownMethod, message: "no method Properties.\(member)")
        }
    }
}
