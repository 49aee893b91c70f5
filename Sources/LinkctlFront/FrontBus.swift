import CDBusFront

/// One blocking call to linkrouterd over a private connection to the session
/// bus: libdbus as DBusKit drives it, cut to what the front's verbs send and
/// read. The only file of the front that touches libdbus.
struct FrontBus {
    private let connection: OpaquePointer

    /// An argument the front sends: a string, or an `a{sv}` of options.
    enum Argument {
        case string(String)
        case options([(String, Option)])
    }

    /// An option's value in an `a{sv}`.
    enum Option {
        case string(String)
        case uint32(UInt32)
        case boolean(Bool)
        case strings([String])
    }

    /// A value in an answer's `a{sv}`: the types linkctl prints (as `JSON(vardict:)` reads them); others are left out.
    enum Value {
        case string(String)
        case integer(Int64)
        case boolean(Bool)
        case strings([String])
    }

    /// An `a{sv}`'s entries, in the order they came.
    struct Entries {
        var all: [(String, Value)] = []

        func value(_ key: String) -> Value? { all.first { $0.0 == key }?.1 }
        func entry(_ key: String) -> String? { if case .string(let s)? = value(key) { s } else { nil } }
        func integer(_ key: String) -> Int64? { if case .integer(let n)? = value(key) { n } else { nil } }
        func strings(_ key: String) -> [String] { if case .strings(let l)? = value(key) { l } else { [] } }
    }

    /// The daemon's answer: its first argument as a string, an `a{sv}`, or an `aa{sv}` (`ListAccounts`).
    struct Reply {
        var string: String?
        var entries = Entries()
        var records: [Entries] = []

        func entry(_ key: String) -> String? { entries.entry(key) }
        func integer(_ key: String) -> Int64? { entries.integer(key) }
    }

    /// What became of a call.
    enum Answer {
        /// The daemon answered.
        case reply(Reply)
        /// The daemon answered with an error.
        case refused(name: String, message: String)
        /// No daemon answered (`DaemonReachability`): the bus's message.
        case unreachable(String)
    }

    /// A connection to the bus `DBUS_SESSION_BUS_ADDRESS` names, registered
    /// (Hello). Nil when there is none or it cannot be reached: nothing has
    /// been sent then, and the full linkctl finds the bus its own way and says why.
    static func connect() -> FrontBus? {
        guard let address = FrontProcess.nonEmpty("DBUS_SESSION_BUS_ADDRESS") else { return nil }
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let c = dbus_connection_open_private(address, &error) else { return nil }
        dbus_connection_set_exit_on_disconnect(c, 0)
        guard dbus_bus_register(c, &error) != 0 else {
            dbus_connection_close(c)
            dbus_connection_unref(c)
            return nil
        }
        return FrontBus(connection: c)
    }

    /// Calls `member` on linkrouterd's manager object and waits for the answer.
    func call(_ member: String, _ arguments: [Argument], timeoutMilliseconds: Int32) -> Answer {
        guard
            let message = dbus_message_new_method_call(
                BusNames.busName, BusNames.managerPath, BusNames.managerInterface, member)
        else { return .refused(name: "org.freedesktop.DBus.Error.NoMemory", message: "out of memory") }
        defer { dbus_message_unref(message) }
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(message, &iter)
        for argument in arguments {
            switch argument {
            case .string(let s): Self.append(s, to: &iter)
            case .options(let pairs): Self.append(pairs, to: &iter)
            }
        }
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let reply = dbus_connection_send_with_reply_and_block(connection, message, timeoutMilliseconds, &error)
        else {
            let name = error.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed"
            let text = error.message.map { String(cString: $0) } ?? ""
            return DaemonReachability.meansUnreachable(name)
                ? .unreachable(text) : .refused(name: name, message: text)
        }
        defer { dbus_message_unref(reply) }
        var read = DBusMessageIter()
        guard dbus_message_iter_init(reply, &read) != 0 else { return .reply(Reply()) }
        switch dbus_message_iter_get_arg_type(&read) {
        case Int32(LR_DBUS_TYPE_STRING): return .reply(Reply(string: Self.string(&read)))
        case Int32(LR_DBUS_TYPE_ARRAY) where dbus_message_iter_get_element_type(&read) == Int32(LR_DBUS_TYPE_ARRAY):
            var reply = Reply()
            var list = DBusMessageIter()
            dbus_message_iter_recurse(&read, &list)
            while dbus_message_iter_get_arg_type(&list) == Int32(LR_DBUS_TYPE_ARRAY) {
                reply.records.append(Self.entries(&list))
                _ = dbus_message_iter_next(&list)
            }
            return .reply(reply)
        case Int32(LR_DBUS_TYPE_ARRAY): return .reply(Reply(entries: Self.entries(&read)))
        default: return .reply(Reply())
        }
    }

    private static func string(_ iter: inout DBusMessageIter) -> String {
        var p: UnsafePointer<CChar>? = nil
        dbus_message_iter_get_basic(&iter, &p)
        return p.map { String(cString: $0) } ?? ""
    }

    /// The entries of an `a{sv}` whose value is one `Value` reads (the others are not the front's to read).
    private static func entries(_ iter: inout DBusMessageIter) -> Entries {
        var out = Entries()
        guard dbus_message_iter_get_element_type(&iter) == Int32(LR_DBUS_TYPE_DICT_ENTRY) else { return out }
        var array = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &array)
        while dbus_message_iter_get_arg_type(&array) == Int32(LR_DBUS_TYPE_DICT_ENTRY) {
            var entry = DBusMessageIter()
            dbus_message_iter_recurse(&array, &entry)
            if dbus_message_iter_get_arg_type(&entry) == Int32(LR_DBUS_TYPE_STRING) {
                let key = string(&entry)
                var variant = DBusMessageIter()
                if dbus_message_iter_next(&entry) != 0,
                    dbus_message_iter_get_arg_type(&entry) == Int32(LR_DBUS_TYPE_VARIANT)
                {
                    dbus_message_iter_recurse(&entry, &variant)
                    if let value = value(&variant) { out.all.append((key, value)) }
                }
            }
            _ = dbus_message_iter_next(&array)
        }
        return out
    }

    /// A variant's value, when it is one of `Value`'s types.
    private static func value(_ iter: inout DBusMessageIter) -> Value? {
        switch dbus_message_iter_get_arg_type(&iter) {
        case Int32(LR_DBUS_TYPE_STRING): return .string(string(&iter))
        case Int32(LR_DBUS_TYPE_INT64):
            var n: Int64 = 0
            dbus_message_iter_get_basic(&iter, &n)
            return .integer(n)
        case Int32(LR_DBUS_TYPE_BOOLEAN):
            var b: UInt32 = 0  // dbus_bool_t
            dbus_message_iter_get_basic(&iter, &b)
            return .boolean(b != 0)
        case Int32(LR_DBUS_TYPE_ARRAY) where dbus_message_iter_get_element_type(&iter) == Int32(LR_DBUS_TYPE_STRING):
            var list = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &list)
            var out: [String] = []
            while dbus_message_iter_get_arg_type(&list) == Int32(LR_DBUS_TYPE_STRING) {
                out.append(string(&list))
                _ = dbus_message_iter_next(&list)
            }
            return .strings(out)
        default: return nil
        }
    }

    private static func append(_ s: String, to iter: inout DBusMessageIter) {
        s.withCString { c in
            var p: UnsafePointer<CChar>? = c
            _ = dbus_message_iter_append_basic(&iter, Int32(LR_DBUS_TYPE_STRING), &p)
        }
    }

    private static func append(_ pairs: [(String, Option)], to iter: inout DBusMessageIter) {
        var array = DBusMessageIter()
        _ = dbus_message_iter_open_container(&iter, Int32(LR_DBUS_TYPE_ARRAY), "{sv}", &array)
        for (key, value) in pairs {
            var entry = DBusMessageIter()
            _ = dbus_message_iter_open_container(&array, Int32(LR_DBUS_TYPE_DICT_ENTRY), nil, &entry)
            append(key, to: &entry)
            var variant = DBusMessageIter()
            switch value {
            case .string(let s):
                _ = dbus_message_iter_open_container(&entry, Int32(LR_DBUS_TYPE_VARIANT), "s", &variant)
                append(s, to: &variant)
            case .uint32(var n):
                _ = dbus_message_iter_open_container(&entry, Int32(LR_DBUS_TYPE_VARIANT), "u", &variant)
                _ = dbus_message_iter_append_basic(&variant, Int32(LR_DBUS_TYPE_UINT32), &n)
            case .strings(let list):
                _ = dbus_message_iter_open_container(&entry, Int32(LR_DBUS_TYPE_VARIANT), "as", &variant)
                var array = DBusMessageIter()
                _ = dbus_message_iter_open_container(&variant, Int32(LR_DBUS_TYPE_ARRAY), "s", &array)
                for item in list { append(item, to: &array) }
                _ = dbus_message_iter_close_container(&variant, &array)
            case .boolean(let b):
                var v: UInt32 = b ? 1 : 0  // dbus_bool_t
                _ = dbus_message_iter_open_container(&entry, Int32(LR_DBUS_TYPE_VARIANT), "b", &variant)
                _ = dbus_message_iter_append_basic(&variant, Int32(LR_DBUS_TYPE_BOOLEAN), &v)
            }
            _ = dbus_message_iter_close_container(&entry, &variant)
            _ = dbus_message_iter_close_container(&array, &entry)
        }
        _ = dbus_message_iter_close_container(&iter, &array)
    }
}
