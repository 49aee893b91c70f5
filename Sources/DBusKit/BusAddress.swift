import SystemKit

/// Where the session bus is, found the way sd-bus does it and without
/// libdbus's X11 autolaunch (which would start a stray `dbus-launch`).
public enum BusAddress {
    /// `$DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus` if it is a socket, else nil.
    public static func session() -> String? {
        if let address = Environment.nonEmpty("DBUS_SESSION_BUS_ADDRESS") { return address }
        if let runtime = Environment.nonEmpty("XDG_RUNTIME_DIR"), FileSystem.status(runtime + "/bus")?.kind == .socket {
            return "unix:path=" + runtime + "/bus"
        }
        return nil
    }
}
