internal import CSecret
import DBusKit
import Synchronization

/// The Secret Service as libsecret last met it: the unique name that owned
/// `org.freedesktop.secrets`. libsecret keeps one `SecretService` proxy (and
/// its encryption session) for the life of the process, bound to the daemon
/// it first reached, and is never told when that daemon goes: its signals
/// wait on a GLib main context nobody runs here. A keyring daemon that
/// crashed and was started again (by D-Bus activation, by systemd) would be
/// asked at the old name until linkrouterd restarts ("The name :1.2 was not
/// provided by any .service files"). Asked on the worker before each
/// libsecret call (`CollectionCheck`): a new owner drops libsecret's proxy,
/// so the call makes one for the daemon that answers now.
enum ServiceOwner {
    private static let last = Mutex<String?>(nil)

    /// Notes who owns the Secret Service's name now; drops libsecret's proxy when that changed.
    static func follow(_ bus: DBusConnection, timeoutMilliseconds: Int32) {
        guard let ask = try? BusProxy.bus.message("GetNameOwner", [.string(CollectionCheck.service.rawValue)]),
            case .string(let owner)? = try? bus.callArguments(ask, timeoutMilliseconds: timeoutMilliseconds).first
        else { return }
        let changed = last.withLock { seen in
            defer { seen = owner }
            return seen != nil && seen != owner
        }
        if changed, case .success(let lib) = LibSecret.shared { lr_call0(lib.serviceDisconnect) }
    }
}
