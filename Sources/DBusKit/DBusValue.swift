/// One D-Bus value, with its type. Containers carry their element types so an
/// empty array still has a signature.
public indirect enum DBusValue: Sendable, Equatable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(ObjectPath)
    case signature(DBusSignature)
    /// A file descriptor; linkrouter never accepts one and closes any it is sent.
    case unixFD
    case array(element: DBusSignature, [DBusValue])
    case dictionary(key: DBusSignature, value: DBusSignature, [DictionaryEntry])
    case structure([DBusValue])
    case variant(DBusValue)

    /// One `{key, value}` of a dictionary.
    public struct DictionaryEntry: Sendable, Equatable {
        public let key: DBusValue
        public let value: DBusValue
        public init(_ key: DBusValue, _ value: DBusValue) {
            self.key = key
            self.value = value
        }
    }

    public var signature: String {
        switch self {
        case .byte: return "y"
        case .boolean: return "b"
        case .int16: return "n"
        case .uint16: return "q"
        case .int32: return "i"
        case .uint32: return "u"
        case .int64: return "x"
        case .uint64: return "t"
        case .double: return "d"
        case .string: return "s"
        case .objectPath: return "o"
        case .signature: return "g"
        case .unixFD: return "h"
        case .array(let element, _): return "a" + element.rawValue
        case .dictionary(let key, let value, _): return "a{" + key.rawValue + value.rawValue + "}"
        case .structure(let fields): return "(" + fields.map(\.signature).joined() + ")"
        case .variant: return "v"
        }
    }

    // Conveniences for the common shapes.

    /// `a{sv}` from string keys.
    public static func vardict(_ entries: [(String, DBusValue)]) -> DBusValue {
        .dictionary(
            key: DBusSignature(trusted: "s"), value: DBusSignature(trusted: "v"),
            entries.map { DictionaryEntry(.string($0.0), .variant($0.1)) })
    }

    /// `a{ss}`.
    public static func stringDict(_ entries: [(String, String)]) -> DBusValue {
        .dictionary(
            key: DBusSignature(trusted: "s"), value: DBusSignature(trusted: "s"),
            entries.map { DictionaryEntry(.string($0.0), .string($0.1)) })
    }

    /// `as`.
    public static func stringArray(_ items: [String]) -> DBusValue {
        .array(element: DBusSignature(trusted: "s"), items.map { .string($0) })
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var objectPathValue: ObjectPath? {
        if case .objectPath(let p) = self { return p }
        return nil
    }

    public var variantValue: DBusValue? {
        if case .variant(let v) = self { return v }
        return nil
    }

    /// The value of `key` in an `a{sv}` dictionary, its variant unwrapped; nil when absent.
    public func entry(_ key: String) -> DBusValue? {
        guard case .dictionary(_, _, let entries) = self else { return nil }
        for e in entries {
            if case .string(key) = e.key { return e.value.variantValue ?? e.value }
        }
        return nil
    }

    /// Entries of an `a{s…}` dictionary keyed by string, in order.
    public var stringKeyedEntries: [(String, DBusValue)]? {
        guard case .dictionary(_, _, let entries) = self else { return nil }
        var out: [(String, DBusValue)] = []
        for e in entries {
            guard case .string(let k) = e.key else { return nil }
            out.append((k, e.value))
        }
        return out
    }
}
