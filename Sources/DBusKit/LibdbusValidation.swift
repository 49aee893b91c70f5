internal import CDBus

/// libdbus's own validators, so tests can hold the Swift name types to the
/// reference implementation.
public enum LibdbusValidation {
    public static func isValidPath(_ s: String) -> Bool { check(s, dbus_validate_path) }
    public static func isValidInterface(_ s: String) -> Bool { check(s, dbus_validate_interface) }
    public static func isValidMember(_ s: String) -> Bool { check(s, dbus_validate_member) }
    public static func isValidBusName(_ s: String) -> Bool { check(s, dbus_validate_bus_name) }
    public static func isValidSignature(_ s: String) -> Bool {
        let error = CError()
        return dbus_signature_validate(s, error.raw) != 0
    }

    private static func check(
        _ s: String, _ f: (UnsafePointer<CChar>?, UnsafeMutablePointer<CDBus.DBusError>?) -> dbus_bool_t
    ) -> Bool {
        let error = CError()
        return f(s, error.raw) != 0
    }
}
