import DBusKit
import LinkRouterAPI
import LinkRouterCore

/// `org.freedesktop.DBus.Properties` on the manager and on sessions. The
/// properties hold nothing secret, so anyone may read them; codes and
/// verifiers are only ever in `Wait`'s reply.
extension Daemon {
    func properties(_ member: String, _ args: [DBusValue], _ object: Object) throws(DBusError) -> [DBusValue] {
        let interfaceName = args.first?.stringValue ?? ""
        let table = propertyTable(object)
        if !interfaceName.isEmpty && table[interfaceName] == nil {
            throw DBusError(name: DBusError.unknownInterface, message: "this object has no properties on interface \(interfaceName)")
        }
        switch member {
        case "Get":
            let name = args.count > 1 ? args[1].stringValue ?? "" : ""
            for (iface, props) in table where interfaceName.isEmpty || iface == interfaceName {
                if let v = props.first(where: { $0.0 == name })?.1 { return [.variant(v)] }
            }
            throw DBusError(name: DBusError.unknownProperty, message: "no property \(name) on \(interfaceName.isEmpty ? "this object" : interfaceName)")
        case "GetAll":
            let props = table.filter { interfaceName.isEmpty || $0.key == interfaceName }.flatMap(\.value)
            return [.vardict(props)]
        case "Set":
            let name = args.count > 1 ? args[1].stringValue ?? "" : ""
            let known = table.values.contains { $0.contains { $0.0 == name } }
            throw DBusError(name: known ? DBusError.propertyReadOnly : DBusError.unknownProperty,
                            message: known ? "\(name) is read-only" : "no property \(name)")
        default:
            throw DBusError(name: DBusError.unknownMethod, message: "no method Properties.\(member)")
        }
    }

    func propertyTable(_ object: Object) -> [String: [(String, DBusValue)]] {
        switch object {
        case .manager:
            return [API.managerInterface: [("Version", .string(API.version))]]
        case .session(let id):
            guard let s = router.session(id) else { return [:] }
            return [API.sessionInterface: sessionProperties(s)]
        case .node:
            return [:]
        }
    }

    func sessionProperties(_ s: Session) -> [(String, DBusValue)] {
        [
            ("Status", .string(s.status.rawValue)),
            ("RedirectUri", .string(s.redirect.string)),
            ("AppCallbackUri", .string(s.appCallback?.string ?? "")),
            ("ExpiresAt", .uint64(UInt64(max(0, s.expiresAt)))),
            ("Browser", .string(s.browser ?? "")),
        ]
    }

    /// `PropertiesChanged` for a session whose status moved (broadcast: status only, nothing secret).
    /// The body depends only on the status, so each is built once and copied.
    func emitStatusChanged(_ s: Session) {
        do {
            let template: DBusMessage
            if let t = statusSignals[s.status] {
                template = t
            } else {
                template = try DBusMessage.signal(path: ObjectPath(API.sessionsPath)!, interface: InterfaceName(API.propertiesInterface)!,
                                                  member: MemberName("PropertiesChanged")!)
                try template.append(.string(API.sessionInterface), .vardict([("Status", .string(s.status.rawValue))]), .stringArray([]))
                statusSignals[s.status] = template
            }
            let signal = try template.copy()
            try signal.setPath(ObjectPath(s.id.objectPath)!)
            send(signal)
        } catch {
            log.write(.error, "Failed to emit PropertiesChanged for \(s.logTag): \(error.message)")
        }
    }
}
