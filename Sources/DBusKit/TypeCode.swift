internal import CDBus

/// libdbus's type codes as `Int32`, the type its iterator functions take
/// (the shim's enumerators import as `Int`).
enum TypeCode {
    static let invalid = Int32(LR_DBUS_TYPE_INVALID)
    static let byte = Int32(LR_DBUS_TYPE_BYTE)
    static let boolean = Int32(LR_DBUS_TYPE_BOOLEAN)
    static let int16 = Int32(LR_DBUS_TYPE_INT16)
    static let uint16 = Int32(LR_DBUS_TYPE_UINT16)
    static let int32 = Int32(LR_DBUS_TYPE_INT32)
    static let uint32 = Int32(LR_DBUS_TYPE_UINT32)
    static let int64 = Int32(LR_DBUS_TYPE_INT64)
    static let uint64 = Int32(LR_DBUS_TYPE_UINT64)
    static let double = Int32(LR_DBUS_TYPE_DOUBLE)
    static let string = Int32(LR_DBUS_TYPE_STRING)
    static let objectPath = Int32(LR_DBUS_TYPE_OBJECT_PATH)
    static let signature = Int32(LR_DBUS_TYPE_SIGNATURE)
    static let unixFD = Int32(LR_DBUS_TYPE_UNIX_FD)
    static let array = Int32(LR_DBUS_TYPE_ARRAY)
    static let variant = Int32(LR_DBUS_TYPE_VARIANT)
    static let structure = Int32(LR_DBUS_TYPE_STRUCT)
    static let dictEntry = Int32(LR_DBUS_TYPE_DICT_ENTRY)
}
