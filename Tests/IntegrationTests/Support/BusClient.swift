import DBusKit
import LinkRouterAPI
import SystemKit

/// An app on the test bus: a connection of its own, with the calls apps make.
final class BusClient {
    let connection: DBusConnection

    init(_ address: String) throws { connection = try DBusConnection(address: address) }

    var name: String { connection.uniqueName }

    func call(
        _ member: String, _ args: [DBusValue] = [], path: String = API.managerPath.rawValue,
        interface: String = API.managerInterface.rawValue,
        timeoutMilliseconds: Int32 = 10_000
    ) throws(DBusError) -> [DBusValue] {
        // Tests send what they like: a name that is not valid is the daemon's to refuse, not ours.
        guard let p = ObjectPath(path), let i = InterfaceName(interface), let mem = MemberName(member) else {
            throw DBusError(name: DBusError.invalidArgs, message: "not valid names: \(path) \(interface) \(member)")
        }
        let m = DBusMessage.methodCall(API.busName, p, i, mem)
        try m.append(contentsOf: args)
        return try connection.callArguments(m, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Sends every call before reading any answer, so the daemon finds them all
    /// waiting at once (a flood, whatever this test's speed); returns each
    /// call's error name, or nil for a success, in the order sent. At most 100:
    /// dbus-daemon refuses calls beyond 128 awaiting replies on one connection.
    func burst(_ member: MemberName, _ argumentLists: [[DBusValue]]) throws(DBusError) -> [String?] {
        precondition(argumentLists.count <= 100, "dbus-daemon would refuse part of the burst itself")
        var order: [UInt32: Int] = [:]
        for (i, args) in argumentLists.enumerated() {
            let m = DBusMessage.methodCall(API.busName, API.managerPath, API.managerInterface, member)
            try m.append(contentsOf: args)
            try connection.send(m)
            order[m.serial] = i
        }
        connection.flush()
        var out = [String?](repeating: "no answer", count: argumentLists.count)
        var answered = 0
        while answered < argumentLists.count, let m = connection.nextMessage(timeoutMilliseconds: 30_000) {
            guard let i = order[m.replySerial] else { continue }
            answered += 1
            out[i] = m.errorName
        }
        return out
    }

    /// `BeginSession` with string/bool/uint options; returns (path, authorize URL).
    func begin(_ options: [(String, DBusValue)]) throws(DBusError) -> (path: String, url: String) {
        let r = try call("BeginSession", [.vardict(options)])
        return (r[0].objectPathValue!.rawValue, r[1].stringValue!)
    }

    /// A session on a custom scheme with no browser: the common fixture.
    func beginQuiet(redirect: String = "com.example.app:/callback", extra: [(String, DBusValue)] = []) throws(DBusError)
        -> (path: String, url: String)
    {
        try begin(
            [
                ("authorization_endpoint", .string("https://auth.example.com/authorize")),
                ("client_id", .string("demo")),
                ("redirect_uri", .string(redirect)), ("open_browser", .boolean(false)),
            ] + extra)
    }

    func route(_ uri: String) throws(DBusError) -> String { try call("Route", [.string(uri)])[0].stringValue! }

    /// `Wait`'s result as strings.
    func wait(_ path: String, timeoutMilliseconds: UInt32 = 10_000) throws(DBusError) -> [String: String] {
        let r = try call(
            "Wait", [.uint32(timeoutMilliseconds)], path: path, interface: API.sessionInterface.rawValue,
            timeoutMilliseconds: Int32(timeoutMilliseconds) + 5000)
        var out: [String: String] = [:]
        for (k, v) in r[0].stringKeyedEntries ?? [] { out[k] = v.variantValue?.stringValue }
        return out
    }

    func status(_ path: String) throws(DBusError) -> String {
        try sessionProperty("Status", of: path)
    }

    /// A session's string property (`Status`, `OwnerApp`…); a missing one or one of another type fails the call.
    func sessionProperty(_ name: String, of path: String) throws(DBusError) -> String {
        let v = try call(
            "Get", [.string(API.sessionInterface.rawValue), .string(name)], path: path,
            interface: API.propertiesInterface.rawValue)
        guard let s = v.first?.variantValue?.stringValue else {
            throw DBusError(name: DBusError.invalidArgs, message: "\(name) is not a string: \(v)")
        }
        return s
    }

    func allSessions() throws(DBusError) -> [(path: String, status: String)] {
        guard case .array(_, let items) = try call("ListAllSessions")[0] else { return [] }
        return items.compactMap { i in
            guard case .structure(let f) = i else { return nil }
            return (f[0].objectPathValue!.rawValue, f[1].stringValue!)
        }
    }

    func ping() -> Bool { (try? call("Ping", interface: API.peerInterface.rawValue)) != nil }

    /// The daemon's `Counters` property (what it has done since it started).
    func counters() throws(DBusError) -> [String: UInt64] {
        let v = try call(
            "Get", [.string(API.managerInterface.rawValue), .string("Counters")],
            interface: API.propertiesInterface.rawValue)[0].variantValue
        // A property of another shape, or an entry of another type, fails the test: it is never read as 0.
        guard case .dictionary(_, _, let entries)? = v else {
            throw DBusError(name: DBusError.invalidArgs, message: "Counters is not an a{st}: \(String(describing: v))")
        }
        var out: [String: UInt64] = [:]
        for e in entries {
            guard case .string(let k) = e.key, case .uint64(let n) = e.value else {
                throw DBusError(name: DBusError.invalidArgs, message: "a Counters entry is not (s, t): \(e)")
            }
            out[k] = n
        }
        return out
    }

    /// One counter; a name the daemon does not report fails the test (a renamed counter must not read as 0).
    func counter(_ name: String) throws(DBusError) -> UInt64 {
        let all = try counters()
        guard let n = all[name] else {
            throw DBusError(
                name: DBusError.invalidArgs,
                message: "the daemon reports no counter \(name); it has \(all.keys.sorted())")
        }
        return n
    }

    /// A round trip to the daemon: once it returns, every message the daemon
    /// sent this connection before (a signal, a reply) is in its queue, and
    /// every call this connection sent before has been handled. Tests wait on
    /// this, not on time, to show that something did not happen.
    func barrier() throws(DBusError) { _ = try call("Ping", interface: API.peerInterface.rawValue) }

    /// A queued message, without waiting (after `barrier()`).
    func queuedSignal(member: String) -> DBusMessage? {
        while let m = connection.nextMessage(timeoutMilliseconds: 0) {
            if m.kind == .signal && m.member == member { return m }
        }
        return nil
    }

    func introspect(_ path: String) throws(DBusError) -> String {
        try call("Introspect", path: path, interface: API.introspectableInterface.rawValue)[0].stringValue!
    }

    /// Subscribes to signals matching `rule` on this connection.
    func subscribe(_ rule: String) throws(DBusError) { try connection.addMatch(rule) }

    /// The next signal (skipping other messages) within `timeoutMilliseconds`.
    func nextSignal(member: String, timeoutMilliseconds: Int = 5000) -> DBusMessage? {
        nextMessage(.signal, member: member, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// The next message of `kind` named `member` (skipping others) within `timeoutMilliseconds`: a signal, or a
    /// method call to another peer seen through an `eavesdrop='true'` match (the test's bus allows it).
    func nextMessage(_ kind: DBusMessage.Kind, member: String, timeoutMilliseconds: Int = 5000) -> DBusMessage? {
        let deadline = Clock.monotonicMilliseconds() + Int64(timeoutMilliseconds)
        while Clock.monotonicMilliseconds() < deadline {
            guard let m = connection.nextMessage(timeoutMilliseconds: Int(deadline - Clock.monotonicMilliseconds()))
            else { continue }
            if m.kind == kind && m.member == member { return m }
        }
        return nil
    }
}

/// Expects a D-Bus error with this name (the whole point of most refusal tests).
func errorName(_ body: () throws -> Void) -> String? {
    dbusError(body)?.name
}

/// Expects a D-Bus error and returns it.
func dbusError(_ body: () throws -> Void) -> DBusError? {
    do {
        try body()
        return nil
    } catch let e as DBusError {
        return e
    } catch {
        return DBusError(name: "not a D-Bus error", message: "\(error)")
    }
}
