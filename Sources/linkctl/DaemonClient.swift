import DBusKit
import LinkRouterAPI
import LinkRouterCore
import SystemKit

/// linkctl's side of the bus: one private connection, blocking calls.
final class DaemonClient {
    let connection: DBusConnection

    /// What went wrong talking to the daemon.
    enum Failure: Error {
        /// No daemon answered (no bus, activation failed).
        case unavailable(String)
        /// The call went out and no answer came (a timeout, the daemon gone with it unanswered): the daemon may have
        /// it. `sentAs`: the call as the daemon knows it.
        case unanswered(String, sentAs: ClickID?)
        /// The daemon answered with an error.
        case refused(name: String, message: String)

        var code: RouterError.Code? {
            if case .refused(let name, _) = self { return RouterError.Code(dbusName: name) }
            return nil
        }

        /// Whether no daemon's answer came (none reached, or the call unanswered), rather than a refusal.
        var isUnreachable: Bool {
            switch self {
            case .unavailable, .unanswered: true
            case .refused: false
            }
        }

        var text: String {
            switch self {
            case .unavailable(let m), .unanswered(let m, _): return m
            case .refused(let name, let message): return RefusalText.text(name: name, message: message)
            }
        }

        /// The exit status a command ends with for this failure.
        var exitCode: Int32 {
            switch self {
            case .unavailable, .unanswered: return ExitCode.unavailable
            case .refused(let name, _): return ExitCode.forRefusal(name)
            }
        }
    }

    static func connect() throws(Failure) -> DaemonClient {
        do { return DaemonClient(connection: try DBusConnection.session()) } catch {
            throw .unavailable("cannot reach the session bus: \(error.message)")
        }
    }

    init(connection: DBusConnection) { self.connection = connection }

    /// How to run the daemon by hand, for "not reachable" (`DaemonReachability.daemonCommand`).
    static func daemonCommand() -> String {
        let beside = FileSystem.directoryName(FileSystem.executablePath()) + "/linkrouterd"
        return DaemonReachability.daemonCommand(
            onPath: FileSystem.findExecutable("linkrouterd") != nil,
            besideLinkctl: FileSystem.isExecutable(beside) ? beside : nil)
    }

    func call(
        path: ObjectPath = API.managerPath, interface: InterfaceName = API.managerInterface, _ member: MemberName,
        _ args: [DBusValue] = [], timeoutMilliseconds: Int32 = 25_000
    ) throws(Failure) -> [DBusValue] {
        var sent: DBusMessage?
        do {
            let m = try DBusMessage.methodCall(
                destination: API.busName, path: path, interface: interface, member: member)
            try m.append(contentsOf: args)
            sent = m
            return try connection.callArguments(m, timeoutMilliseconds: timeoutMilliseconds)
        } catch {
            if DaemonReachability.mayHaveArrived(error.name), let m = sent, m.serial != 0 {
                throw .unanswered(
                    DaemonReachability.unreachable(error.message, daemon: Self.daemonCommand()),
                    sentAs: ClickID(sender: connection.uniqueName, serial: m.serial))
            }
            if DaemonReachability.meansUnreachable(error.name) {
                throw .unavailable(DaemonReachability.unreachable(error.message, daemon: Self.daemonCommand()))
            }
            throw .refused(name: error.name, message: error.message)
        }
    }

    /// A session's object path from `SESSION` given as a path or a bare id.
    static func sessionPath(_ text: String) -> ObjectPath? {
        guard let id = API.sessionID(at: text) ?? SessionID(text) else { return nil }
        return API.path(of: id)
    }

    func property(_ name: String, of path: ObjectPath, interface: InterfaceName) throws(Failure) -> DBusValue? {
        try call(path: path, interface: API.propertiesInterface, "Get", [.string(interface.rawValue), .string(name)])
            .first?.variantValue
    }
}
