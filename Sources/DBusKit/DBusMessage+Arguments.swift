internal import CDBus
import Glibc

/// Reading and writing a message's body as `DBusValue`s, through libdbus's
/// iterators. Every string is checked before libdbus sees it: libdbus aborts
/// the process on invalid UTF-8 or an embedded NUL (threat model D7).
extension DBusMessage {
    public func append(_ values: DBusValue...) throws(DBusError) { try append(contentsOf: values) }

    public func append(contentsOf values: [DBusValue]) throws(DBusError) {
        for v in values { try Self.check(v) }
        let iter = UnsafeMutablePointer<DBusMessageIter>.allocate(capacity: 1)
        defer { iter.deallocate() }
        dbus_message_iter_init_append(raw, iter)
        for v in values { try Self.write(v, to: iter) }
    }

    /// Every argument, in order.
    public func arguments() throws(DBusError) -> [DBusValue] {
        let iter = UnsafeMutablePointer<DBusMessageIter>.allocate(capacity: 1)
        defer { iter.deallocate() }
        guard dbus_message_iter_init(raw, iter) != 0 else { return [] }
        var out: [DBusValue] = []
        while dbus_message_iter_get_arg_type(iter) != TypeCode.invalid {
            out.append(try Self.read(iter))
            dbus_message_iter_next(iter)
        }
        return out
    }

    /// Refuses what libdbus would abort on, before any byte is appended.
    static func check(_ value: DBusValue) throws(DBusError) {
        switch value {
        case .string(let s):
            if s.utf8.contains(0) {
                throw DBusError(name: DBusError.invalidArgs, message: "a string to send contains a NUL byte")
            }
        case .array(let element, let items):
            for i in items {
                guard i.signature == element.rawValue else {
                    throw DBusError(name: DBusError.invalidArgs, message: "array of \(element) holds a \(i.signature)")
                }
                try check(i)
            }
        case .dictionary(let k, let v, let entries):
            for e in entries {
                guard e.key.signature == k.rawValue, e.value.signature == v.rawValue else {
                    throw DBusError(
                        name: DBusError.invalidArgs,
                        message: "dictionary of {\(k)\(v)} holds {\(e.key.signature)\(e.value.signature)}")
                }
                try check(e.key)
                try check(e.value)
            }
        case .structure(let fields):
            guard !fields.isEmpty else { throw DBusError(name: DBusError.invalidArgs, message: "an empty structure") }
            for f in fields { try check(f) }
        case .variant(let inner):
            try check(inner)
        case .unixFD:
            throw DBusError(name: DBusError.invalidArgs, message: "file descriptors are not sent or accepted here")
        default:
            break
        }
    }

    private static func appendBasic<T: BitwiseCopyable>(
        _ iter: UnsafeMutablePointer<DBusMessageIter>, _ type: Int32, _ value: T
    ) throws(DBusError) {
        var v = value
        guard dbus_message_iter_append_basic(iter, type, &v) != 0 else {
            throw DBusError.outOfMemory("appending an argument")
        }
    }

    private static func appendString(_ iter: UnsafeMutablePointer<DBusMessageIter>, _ type: Int32, _ s: String)
        throws(DBusError)
    {
        let ok = s.withCString { p in
            var ptr: UnsafePointer<CChar>? = p
            return dbus_message_iter_append_basic(iter, type, &ptr)
        }
        guard ok != 0 else { throw DBusError.outOfMemory("appending a string") }
    }

    private static func container(
        _ iter: UnsafeMutablePointer<DBusMessageIter>, _ type: Int32, _ signature: String?,
        _ body: (UnsafeMutablePointer<DBusMessageIter>) throws(DBusError) -> Void
    ) throws(DBusError) {
        let sub = UnsafeMutablePointer<DBusMessageIter>.allocate(capacity: 1)
        defer { sub.deallocate() }
        let opened: dbus_bool_t
        if let signature {
            opened = signature.withCString { dbus_message_iter_open_container(iter, type, $0, sub) }
        } else {
            opened = dbus_message_iter_open_container(iter, type, nil, sub)
        }
        guard opened != 0 else { throw DBusError.outOfMemory("opening a container") }
        do {
            try body(sub)
        } catch {
            dbus_message_iter_abandon_container(iter, sub)
            throw error
        }
        guard dbus_message_iter_close_container(iter, sub) != 0 else {
            throw DBusError.outOfMemory("closing a container")
        }
    }

    private static func write(_ value: DBusValue, to iter: UnsafeMutablePointer<DBusMessageIter>) throws(DBusError) {
        switch value {
        case .byte(let v): try appendBasic(iter, TypeCode.byte, v)
        case .boolean(let v): try appendBasic(iter, TypeCode.boolean, dbus_bool_t(v ? 1 : 0))
        case .int16(let v): try appendBasic(iter, TypeCode.int16, v)
        case .uint16(let v): try appendBasic(iter, TypeCode.uint16, v)
        case .int32(let v): try appendBasic(iter, TypeCode.int32, v)
        case .uint32(let v): try appendBasic(iter, TypeCode.uint32, v)
        case .int64(let v): try appendBasic(iter, TypeCode.int64, v)
        case .uint64(let v): try appendBasic(iter, TypeCode.uint64, v)
        case .double(let v): try appendBasic(iter, TypeCode.double, v)
        case .string(let s): try appendString(iter, TypeCode.string, s)
        case .objectPath(let p): try appendString(iter, TypeCode.objectPath, p.rawValue)
        case .signature(let g): try appendString(iter, TypeCode.signature, g.rawValue)
        case .unixFD:
            throw DBusError(name: DBusError.invalidArgs, message: "file descriptors are not sent or accepted here")
        case .array(let element, let items):
            try container(iter, TypeCode.array, element.rawValue) { sub throws(DBusError) in
                for i in items { try write(i, to: sub) }
            }
        case .dictionary(let k, let v, let entries):
            try container(iter, TypeCode.array, "{" + k.rawValue + v.rawValue + "}") { sub throws(DBusError) in
                for e in entries {
                    try container(sub, TypeCode.dictEntry, nil) { entry throws(DBusError) in
                        try write(e.key, to: entry)
                        try write(e.value, to: entry)
                    }
                }
            }
        case .structure(let fields):
            try container(iter, TypeCode.structure, nil) { sub throws(DBusError) in
                for f in fields { try write(f, to: sub) }
            }
        case .variant(let inner):
            try container(iter, TypeCode.variant, inner.signature) { sub throws(DBusError) in
                try write(inner, to: sub)
            }
        }
    }

    private static func basic<T: BitwiseCopyable>(_ iter: UnsafeMutablePointer<DBusMessageIter>, _ zero: T) -> T {
        var v = zero
        dbus_message_iter_get_basic(iter, &v)
        return v
    }

    private static func signatureOf(_ iter: UnsafeMutablePointer<DBusMessageIter>) -> String {
        guard let p = dbus_message_iter_get_signature(iter) else { return "" }
        defer { dbus_free(p) }
        return String(cString: p)
    }

    /// Reads one value; libdbus has validated the message on receipt, so
    /// strings are UTF-8 and signatures are well formed.
    private static func read(_ iter: UnsafeMutablePointer<DBusMessageIter>) throws(DBusError) -> DBusValue {
        let type = dbus_message_iter_get_arg_type(iter)
        switch type {
        case TypeCode.byte: return .byte(basic(iter, UInt8(0)))
        case TypeCode.boolean: return .boolean(basic(iter, dbus_bool_t(0)) != 0)
        case TypeCode.int16: return .int16(basic(iter, Int16(0)))
        case TypeCode.uint16: return .uint16(basic(iter, UInt16(0)))
        case TypeCode.int32: return .int32(basic(iter, Int32(0)))
        case TypeCode.uint32: return .uint32(basic(iter, UInt32(0)))
        case TypeCode.int64: return .int64(basic(iter, Int64(0)))
        case TypeCode.uint64: return .uint64(basic(iter, UInt64(0)))
        case TypeCode.double: return .double(basic(iter, Double(0)))
        case TypeCode.string, TypeCode.objectPath, TypeCode.signature:
            let p = basic(iter, UnsafePointer<CChar>?.none)
            let s = p.map { String(cString: $0) } ?? ""
            if type == TypeCode.string { return .string(s) }
            if type == TypeCode.objectPath {
                guard let path = ObjectPath(s) else {
                    throw DBusError(name: DBusError.invalidArgs, message: "invalid object path")
                }
                return .objectPath(path)
            }
            guard let g = DBusSignature(s) else {
                throw DBusError(name: DBusError.invalidArgs, message: "invalid signature")
            }
            return .signature(g)
        case TypeCode.unixFD:
            // libdbus hands over a duplicate; close it at once.
            let fd = basic(iter, Int32(-1))
            if fd >= 0 { _ = close(fd) }
            return .unixFD
        case TypeCode.variant:
            let sub = UnsafeMutablePointer<DBusMessageIter>.allocate(capacity: 1)
            defer { sub.deallocate() }
            dbus_message_iter_recurse(iter, sub)
            return .variant(try read(sub))
        case TypeCode.structure:
            let sub = UnsafeMutablePointer<DBusMessageIter>.allocate(capacity: 1)
            defer { sub.deallocate() }
            dbus_message_iter_recurse(iter, sub)
            var fields: [DBusValue] = []
            while dbus_message_iter_get_arg_type(sub) != TypeCode.invalid {
                fields.append(try read(sub))
                dbus_message_iter_next(sub)
            }
            return .structure(fields)
        case TypeCode.array:
            let full = signatureOf(iter)
            let elementText = String(full.dropFirst())
            let sub = UnsafeMutablePointer<DBusMessageIter>.allocate(capacity: 1)
            defer { sub.deallocate() }
            dbus_message_iter_recurse(iter, sub)
            if elementText.hasPrefix("{") {
                let inner = Array(elementText.utf8.dropFirst().dropLast())
                let keySig = DBusSignature(trusted: String(decoding: inner.prefix(1), as: UTF8.self))
                let valueSig = DBusSignature(trusted: String(decoding: inner.dropFirst(), as: UTF8.self))
                var entries: [DBusValue.DictionaryEntry] = []
                let entry = UnsafeMutablePointer<DBusMessageIter>.allocate(capacity: 1)
                defer { entry.deallocate() }
                while dbus_message_iter_get_arg_type(sub) == TypeCode.dictEntry {
                    dbus_message_iter_recurse(sub, entry)
                    let k = try read(entry)
                    dbus_message_iter_next(entry)
                    let v = try read(entry)
                    entries.append(DBusValue.DictionaryEntry(k, v))
                    dbus_message_iter_next(sub)
                }
                return .dictionary(key: keySig, value: valueSig, entries)
            }
            var items: [DBusValue] = []
            while dbus_message_iter_get_arg_type(sub) != TypeCode.invalid {
                items.append(try read(sub))
                dbus_message_iter_next(sub)
            }
            return .array(element: DBusSignature(trusted: elementText), items)
        default:
            throw DBusError(name: DBusError.invalidArgs, message: "unsupported D-Bus type code \(type)")
        }
    }
}
