internal import CDBus
import SystemKit

/// A private connection to a message bus. Owned by one thread; libdbus is
/// never allowed to `exit()` the process when the bus goes away.
public final class DBusConnection {
    let raw: OpaquePointer
    private var filter: Unmanaged<FilterBox>?
    var loopIntegration: LoopIntegration?

    /// What a message handler did with a message.
    public enum Handling: Sendable { case handled, notHandled }

    /// Connects to `address` and says Hello, so the connection has a unique name.
    public init(address: String) throws(DBusError) {
        Self.initialiseThreads
        let error = CError()
        guard let c = dbus_connection_open_private(address, error.raw) else {
            throw error.swiftError("cannot connect to \(address)")
        }
        dbus_connection_set_exit_on_disconnect(c, 0)
        guard dbus_bus_register(c, error.raw) != 0 else {
            dbus_connection_close(c)
            dbus_connection_unref(c)
            throw error.swiftError("cannot register with the bus at \(address)")
        }
        raw = c
    }

    /// Connects to the user's session bus (see `BusAddress.session()`).
    public static func session() throws(DBusError) -> DBusConnection {
        guard let address = BusAddress.session() else {
            throw DBusError(
                name: DBusError.disconnected,
                message: "no session bus: DBUS_SESSION_BUS_ADDRESS is unset and $XDG_RUNTIME_DIR/bus does not exist")
        }
        return try DBusConnection(address: address)
    }

    private static let initialiseThreads: Void = { _ = dbus_threads_init_default() }()

    deinit {
        if let filter {
            dbus_connection_remove_filter(raw, filterThunk, filter.toOpaque())
            filter.release()
        }
        detachFromLoop()
        dbus_connection_close(raw)
        dbus_connection_unref(raw)
    }

    public var uniqueName: String {
        guard let p = dbus_bus_get_unique_name(raw) else { return "" }
        return String(cString: p)
    }

    /// Queues `message`; libdbus writes it as soon as the socket allows.
    public func send(_ message: DBusMessage) throws(DBusError) {
        guard dbus_connection_send(raw, message.raw, nil) != 0 else {
            throw DBusError.outOfMemory("queueing a message")
        }
    }

    /// Blocks until every queued message is written.
    public func flush() { dbus_connection_flush(raw) }

    /// Sends a method call and blocks for its reply; an error reply is thrown.
    public func call(_ message: DBusMessage, timeoutMilliseconds: Int32 = 25_000) throws(DBusError) -> DBusMessage {
        let error = CError()
        guard let reply = dbus_connection_send_with_reply_and_block(raw, message.raw, timeoutMilliseconds, error.raw)
        else {
            throw error.swiftError("no reply")
        }
        return DBusMessage(adopting: reply)
    }

    /// The reply's arguments, for the common case.
    public func callArguments(_ message: DBusMessage, timeoutMilliseconds: Int32 = 25_000) throws(DBusError)
        -> [DBusValue]
    {
        try call(message, timeoutMilliseconds: timeoutMilliseconds).arguments()
    }

    /// `RequestName`'s answers.
    public enum NameRequest: Sendable, Equatable { case primaryOwner, inQueue, exists, alreadyOwner }

    /// Asks for a well-known name; with `replace: false` and no queueing, a
    /// taken name is answered `.exists` at once.
    public func requestName(_ name: BusName, allowReplacement: Bool = false) throws(DBusError) -> NameRequest {
        let error = CError()
        var flags = UInt32(DBUS_NAME_FLAG_DO_NOT_QUEUE)
        if allowReplacement { flags |= UInt32(DBUS_NAME_FLAG_ALLOW_REPLACEMENT) }
        let rc = dbus_bus_request_name(raw, name.rawValue, flags, error.raw)
        switch rc {
        case Int32(DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER): return .primaryOwner
        case Int32(DBUS_REQUEST_NAME_REPLY_IN_QUEUE): return .inQueue
        case Int32(DBUS_REQUEST_NAME_REPLY_EXISTS): return .exists
        case Int32(DBUS_REQUEST_NAME_REPLY_ALREADY_OWNER): return .alreadyOwner
        default: throw error.swiftError("RequestName failed")
        }
    }

    /// Subscribes to signals matching `rule` (blocks for the bus's answer).
    public func addMatch(_ rule: String) throws(DBusError) {
        let error = CError()
        dbus_bus_add_match(raw, rule, error.raw)
        if error.isSet { throw error.swiftError("AddMatch failed") }
    }

    /// Routes every incoming message through `handler`. Messages it does not
    /// handle get libdbus's default (an UnknownMethod error for method calls).
    public func setHandler(_ handler: @escaping (DBusMessage) -> Handling) {
        if let filter {
            dbus_connection_remove_filter(raw, filterThunk, filter.toOpaque())
            filter.release()
        }
        let box = Unmanaged.passRetained(FilterBox(handler))
        filter = box
        dbus_connection_add_filter(raw, filterThunk, box.toOpaque(), nil)
    }

    /// Runs queued incoming messages through the handler until none are left.
    public func dispatchAll() {
        while dbus_connection_dispatch(raw) == DBUS_DISPATCH_DATA_REMAINS {}
    }

    /// For simple clients without a loop: waits up to `timeoutMilliseconds`
    /// for one incoming message and returns it (nil on timeout or disconnect).
    public func nextMessage(timeoutMilliseconds: Int) -> DBusMessage? {
        let deadline = Clock.monotonicMilliseconds() + Int64(timeoutMilliseconds)
        while true {
            if let m = dbus_connection_pop_message(raw) { return DBusMessage(adopting: m) }
            let left = deadline - Clock.monotonicMilliseconds()
            guard left > 0, dbus_connection_read_write(raw, Int32(left)) != 0 else {
                return dbus_connection_pop_message(raw).map { DBusMessage(adopting: $0) }
            }
        }
    }
}

/// Keeps the Swift handler alive for as long as libdbus holds the filter.
final class FilterBox {
    let handler: (DBusMessage) -> DBusConnection.Handling
    init(_ handler: @escaping (DBusMessage) -> DBusConnection.Handling) { self.handler = handler }
}

private let filterThunk: DBusHandleMessageFunction = { _, message, data in
    guard let message, let data else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
    let box = Unmanaged<FilterBox>.fromOpaque(data).takeUnretainedValue()
    switch box.handler(DBusMessage(retaining: message)) {
    case .handled: return DBUS_HANDLER_RESULT_HANDLED
    case .notHandled: return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
    }
}
