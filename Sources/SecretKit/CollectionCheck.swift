import DBusKit
import SystemKit

/// Whether the Secret Service's default collection can be used, asked over
/// D-Bus on the worker before each libsecret call: libsecret reads a locked
/// item as "nothing there", and a cached proxy of its own can say "unlocked"
/// after a lock (`../shared/reference/secret-service.md`). `ReadAlias` and the
/// collection's `Locked` property are asked fresh every time.
enum CollectionCheck {
    static let service: BusName = "org.freedesktop.secrets"
    static let servicePath: ObjectPath = "/org/freedesktop/secrets"
    static let serviceInterface: InterfaceName = "org.freedesktop.Secret.Service"

    /// Nil when the default collection exists and is unlocked; else why not.
    /// Each call waits `timeoutMilliseconds` (what is left of the job's time);
    /// a timeout is reported as the job's whole `deadline`, as its other ends are.
    ///
    /// A missing default collection is asked again, for up to a second within that time, before it is believed:
    /// in one CI run a gnome-keyring that had its default collection before and after answered "none" once, in the
    /// middle of a test, and the caller was told to create a keyring (NoKeyring) it had.
    static func problem(address: String?, timeoutMilliseconds: Int32, deadline: Int64) -> SecretError? {
        let until = Clock.monotonicMilliseconds() + Int64(timeoutMilliseconds)
        var asked = 0
        while true {
            let left = Int32(clamping: max(until - Clock.monotonicMilliseconds(), 1))
            let found = once(address: address, timeoutMilliseconds: left, deadline: deadline)
            asked += 1
            guard found == .noDefaultCollection, asked < 6, Clock.monotonicMilliseconds() + 200 < until else {
                return found
            }
            Clock.sleep(milliseconds: 200)
        }
    }

    /// `problem`, asked once.
    private static func once(address: String?, timeoutMilliseconds: Int32, deadline: Int64) -> SecretError? {
        let bus: DBusConnection
        let collection: ObjectPath
        switch defaultCollection(address: address, timeoutMilliseconds: timeoutMilliseconds, deadline: deadline) {
        case .failure(let e): return e
        case .success(let found): (bus, collection) = found
        }
        do {
            let get = DBusMessage.methodCall(service, collection, "org.freedesktop.DBus.Properties", "Get")
            try get.append(.string("org.freedesktop.Secret.Collection"), .string("Locked"))
            let answer = try bus.callArguments(get, timeoutMilliseconds: timeoutMilliseconds).first
            guard case .variant(.boolean(let locked))? = answer else {
                return .failed("the default collection's Locked property is not a boolean")
            }
            if locked { return .locked }
            ServiceOwner.follow(bus, timeoutMilliseconds: timeoutMilliseconds)
            return nil
        } catch {
            // KeePassXC answers ReadAlias with a path it has no object at.
            if error.name == DBusError.unknownObject || error.name == DBusError.unknownMethod {
                return .noDefaultCollection
            }
            return classify(error, deadline)
        }
    }

    /// A connection to the Secret Service's bus and the collection behind its `default` alias (`ReadAlias`), or why
    /// there is none: what every question about the default collection asks first (`problem`, `CollectionUnlock`).
    static func defaultCollection(address: String?, timeoutMilliseconds: Int32, deadline: Int64)
        -> Result<(DBusConnection, ObjectPath), SecretError>
    {
        guard let address else { return .failure(.noService("no session bus: DBUS_SESSION_BUS_ADDRESS is not set")) }
        let bus: DBusConnection
        do { bus = try DBusConnection(address: address) } catch { return .failure(.noService(error.message)) }
        do {
            let call = DBusMessage.methodCall(service, servicePath, serviceInterface, "ReadAlias")
            try call.append(.string("default"))
            guard
                case .objectPath(let path)? = try bus.callArguments(call, timeoutMilliseconds: timeoutMilliseconds)
                    .first
            else {
                return .failure(.failed("ReadAlias answered no object path"))
            }
            guard path.rawValue != "/" else { return .failure(.noDefaultCollection) }
            return .success((bus, path))
        } catch {
            return .failure(classify(error, deadline))
        }
    }

    static func classify(_ error: DBusError, _ deadline: Int64) -> SecretError {
        switch error.name {
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
            "org.freedesktop.DBus.Error.Spawn.ServiceNotFound":
            .noService(error.message)
        case DBusError.noReply, "org.freedesktop.DBus.Error.Timeout": .timedOut(milliseconds: deadline)
        default: .failed(error.message)
        }
    }
}
