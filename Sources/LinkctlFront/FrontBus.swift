import CDBusFront
import CLibc

/// Calls to linkrouterd over a connection of the front's own to the session
/// bus, cut to what the front's verbs send and read. The first call costs two
/// round trips to the bus, not four: `AUTH EXTERNAL`, then, once the bus says
/// `OK`, `BEGIN`, `Hello` and the call in one write (libdbus's client waits
/// for `OK`, for its `NEGOTIATE_UNIX_FD`'s answer and for `Hello`'s reply;
/// sd-bus, which sends everything at once, comes only as libsystemd.so and
/// nine libraries behind it, which the front does not load; and sending
/// `BEGIN` before `OK` breaks Debian 12's xdg-dbus-proxy 0.1.4, the bus of
/// every Flatpak app). libdbus still writes and reads every message
/// (`dbus_message_marshal`, `dbus_message_demarshal`) and parses the bus
/// address (`dbus_parse_address`); the front writes only SASL's two lines.
/// Measured in-process against a bus (bench/notes.md): 360 µs a connection
/// and a call with libdbus's own client, 213 µs so. The only file of the front
/// that touches libdbus or the bus's socket (the agent socket is `FrontAgent`'s).
struct FrontBus {
    private let socket: Int32
    /// The last serial used: `Hello` is 1.
    private var serial: UInt32 = 1
    /// Bytes read past the answer looked for (the bus's `NameAcquired`, say).
    private var pending: [UInt8] = []
    /// This connection's unique name, once `Hello`'s answer is read.
    private var uniqueName: String?
    /// The serial of the call written to the bus and not yet answered.
    private var sentSerial: UInt32?
    /// The last call went out and no answer came (no reply in time, the bus closed the connection, or the bus
    /// said its destination left without replying): the daemon may have it. The call as the daemon knows it
    /// (`ClickID`), when the bus had told this connection its name; nil otherwise.
    private(set) var unanswered: ClickID?

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

    /// The daemon's answer: its first argument as a string, an `a{sv}`, or an `aa{sv}` (`ListAccounts`).
    struct Reply {
        var string: String?
        var entries = ReplyEntries()
        var records: [ReplyEntries] = []

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

    /// A socket connected to the bus `DBUS_SESSION_BUS_ADDRESS` names, when
    /// its first address is a UNIX socket (`path=` or `abstract=`). Nil when
    /// there is none, it is another transport, or it cannot be reached: nothing
    /// has been sent then, and the full linkctl finds the bus its own way
    /// (libdbus's client, every transport and fallback) and says why.
    static func connect() -> FrontBus? {
        guard let address = FrontProcess.nonEmpty("DBUS_SESSION_BUS_ADDRESS"), let target = unixSocket(address),
            let fd = FrontProcess.connectUnix(target.path, abstract: target.abstract)
        else { return nil }
        return FrontBus(socket: fd)
    }

    /// The first address's UNIX socket, unescaped by libdbus; nil for any other transport.
    private static func unixSocket(_ address: String) -> (path: String, abstract: Bool)? {
        var entries: UnsafeMutablePointer<OpaquePointer?>? = nil
        var count: Int32 = 0
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard dbus_parse_address(address, &entries, &count, &error) != 0, let entries else { return nil }
        defer { dbus_address_entries_free(entries) }
        guard count > 0, let first = entries[0], let method = dbus_address_entry_get_method(first),
            String(cString: method) == "unix"
        else { return nil }
        if let path = dbus_address_entry_get_value(first, "path") { return (String(cString: path), false) }
        if let name = dbus_address_entry_get_value(first, "abstract") { return (String(cString: name), true) }
        return nil
    }

    /// Calls `member` on linkrouterd's manager object and waits for the answer (the first call on the connection
    /// authenticates and says `Hello` in the same write).
    mutating func call(_ member: String, _ arguments: [Argument], timeoutMilliseconds: Int32) -> Answer {
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
        let deadline = Self.milliseconds() + Int64(timeoutMilliseconds)
        var out: [UInt8] = []
        if serial == 1 {
            // SASL EXTERNAL with the effective uid, as libdbus sends it: the bus checks it against the socket's
            // credentials. Nothing but the bus has been sent to when it refuses: said as no daemon answering (an
            // `open` is kept for the next one).
            let auth = [0] + Array(("AUTH EXTERNAL " + Self.hex(String(geteuid())) + "\r\n").utf8)
            guard send(auth) else {
                return .unreachable("the session bus closed the connection")
            }
            var end = Self.lineEnd(pending)
            while end == nil {
                if let failure = readMore(until: deadline, timeoutMilliseconds) { return failure }
                end = Self.lineEnd(pending)
            }
            let line = String(decoding: pending[..<end!], as: UTF8.self)
            pending.removeFirst(end! + 2)
            guard line.hasPrefix("OK ") else {
                return .unreachable("the session bus did not accept this process (" + line + ")")
            }
            out = Array("BEGIN\r\n".utf8)
            guard
                let hello = dbus_message_new_method_call(
                    "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello")
            else { return .refused(name: "org.freedesktop.DBus.Error.NoMemory", message: "out of memory") }
            defer { dbus_message_unref(hello) }
            dbus_message_set_serial(hello, 1)
            out += Self.marshal(hello)
        }
        serial += 1
        let expected = serial
        dbus_message_set_serial(message, expected)
        out += Self.marshal(message)
        unanswered = nil
        guard send(out) else {
            return .unreachable("the session bus closed the connection before the call went out")
        }
        sentSerial = expected
        let answer = answer(to: expected, until: deadline, timeoutMilliseconds)
        sentSerial = nil
        return answer
    }

    /// `failure` after the call went out: the daemon may have it, and `unanswered` says which call it was.
    private mutating func unansweredCall(_ failure: Answer) -> Answer {
        if let sentSerial, let uniqueName { unanswered = ClickID(sender: uniqueName, serial: sentSerial) }
        return failure
    }

    /// Reads until the reply to `expected` (others are dropped: `Hello`'s, the bus's signals), or the deadline.
    private mutating func answer(to expected: UInt32, until deadline: Int64, _ timeoutMilliseconds: Int32) -> Answer {
        while true {
            while pending.count >= 16 {
                let needed = pending.withUnsafeBufferPointer { buffer in
                    buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                        dbus_message_demarshal_bytes_needed($0, Int32(buffer.count))
                    }
                }
                guard needed > 0 else {
                    return unansweredCall(.unreachable("the session bus sent a message libdbus cannot read"))
                }
                guard pending.count >= Int(needed) else { break }
                var error = DBusError()
                dbus_error_init(&error)
                defer { dbus_error_free(&error) }
                let received = pending.withUnsafeBufferPointer { buffer in
                    buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                        dbus_message_demarshal($0, needed, &error)
                    }
                }
                pending.removeFirst(Int(needed))
                guard let received else {
                    return unansweredCall(.unreachable("the session bus sent a message libdbus cannot read"))
                }
                defer { dbus_message_unref(received) }
                let kind = dbus_message_get_type(received)
                // `Hello`'s answer: the name the daemon will know this connection's calls by.
                if dbus_message_get_reply_serial(received) == 1, kind == Int32(LR_DBUS_MESSAGE_TYPE_METHOD_RETURN) {
                    var read = DBusMessageIter()
                    if dbus_message_iter_init(received, &read) != 0,
                        dbus_message_iter_get_arg_type(&read) == Int32(LR_DBUS_TYPE_STRING)
                    {
                        uniqueName = Self.string(&read)
                    }
                }
                guard dbus_message_get_reply_serial(received) == expected,
                    kind == Int32(LR_DBUS_MESSAGE_TYPE_METHOD_RETURN) || kind == Int32(LR_DBUS_MESSAGE_TYPE_ERROR)
                else { continue }
                if kind == Int32(LR_DBUS_MESSAGE_TYPE_ERROR), let name = dbus_message_get_error_name(received),
                    DaemonReachability.mayHaveArrived(String(cString: name))
                {
                    return unansweredCall(Self.answer(received))
                }
                return Self.answer(received)
            }
            if let failure = readMore(until: deadline, timeoutMilliseconds) { return failure }
        }
    }

    /// Appends what the bus sends next to `pending`; the failure when it closed or the deadline passed (after the
    /// call went out, said in `unanswered`).
    private mutating func readMore(until deadline: Int64, _ timeoutMilliseconds: Int32) -> Answer? {
        guard let failure = readOrFail(until: deadline, timeoutMilliseconds) else { return nil }
        return unansweredCall(failure)
    }

    private mutating func readOrFail(until deadline: Int64, _ timeoutMilliseconds: Int32) -> Answer? {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let left = deadline - Self.milliseconds()
            guard left > 0 else {
                return .unreachable("no reply within " + String(timeoutMilliseconds / 1000) + " s")
            }
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(left, Int64(Int32.max))))
            if ready < 0, lr_errno() != EINTR {
                return .unreachable(
                    "the connection to the session bus failed (" + String(cString: strerror(lr_errno())) + ")")
            }
            guard ready > 0 else { continue }
            let n = chunk.withUnsafeMutableBytes { read(socket, $0.baseAddress!, $0.count) }
            if n < 0, lr_errno() == EINTR || lr_errno() == EAGAIN { continue }
            guard n > 0 else {
                return .unreachable("the session bus closed the connection before linkrouterd answered")
            }
            pending += chunk[..<n]
            return nil
        }
    }

    /// A reply or an error message, as an `Answer`.
    private static func answer(_ reply: OpaquePointer) -> Answer {
        if dbus_message_get_type(reply) == Int32(LR_DBUS_MESSAGE_TYPE_ERROR) {
            let name =
                dbus_message_get_error_name(reply).map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed"
            var text = ""
            var read = DBusMessageIter()
            if dbus_message_iter_init(reply, &read) != 0,
                dbus_message_iter_get_arg_type(&read) == Int32(LR_DBUS_TYPE_STRING)
            {
                text = string(&read)
            }
            return DaemonReachability.meansUnreachable(name) ? .unreachable(text) : .refused(name: name, message: text)
        }
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

    /// All of `bytes` to the bus, with `MSG_NOSIGNAL` (as libdbus sends): a bus gone is a failed send, not SIGPIPE.
    private func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes {
                CLibc.send(socket, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            if n < 0 {
                if lr_errno() == EINTR { continue }
                return false
            }
            offset += n
        }
        return true
    }

    /// A message's bytes on the wire.
    private static func marshal(_ message: OpaquePointer) -> [UInt8] {
        var bytes: UnsafeMutablePointer<CChar>? = nil
        var count: Int32 = 0
        guard dbus_message_marshal(message, &bytes, &count) != 0, let bytes else { return [] }
        defer { dbus_free(bytes) }
        return UnsafeRawBufferPointer(start: bytes, count: Int(count)).map { $0 }
    }

    /// SASL's hex of the uid's decimal text (uid 1000: `31303030`).
    private static func hex(_ text: String) -> String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for b in text.utf8 { out += [digits[Int(b >> 4)], digits[Int(b & 15)]] }
        return String(decoding: out, as: UTF8.self)
    }

    /// Where the first `\r\n` begins.
    private static func lineEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 2 else { return nil }
        for i in 0..<(bytes.count - 1) where bytes[i] == 0x0D && bytes[i + 1] == 0x0A { return i }
        return nil
    }

    private static func milliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }

    private static func string(_ iter: inout DBusMessageIter) -> String {
        var p: UnsafePointer<CChar>? = nil
        dbus_message_iter_get_basic(&iter, &p)
        return p.map { String(cString: $0) } ?? ""
    }

    /// The entries of an `a{sv}` whose value is one `ReplyEntries.Value` reads (the others are not the front's to read).
    private static func entries(_ iter: inout DBusMessageIter) -> ReplyEntries {
        var out = ReplyEntries()
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

    /// A variant's value, when it is one of `ReplyEntries.Value`'s types.
    private static func value(_ iter: inout DBusMessageIter) -> ReplyEntries.Value? {
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
