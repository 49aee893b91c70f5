import DBusKit
import Freedesktop
import Glibc
public import LinkRouterCore
import SystemKit

/// Which app a process is, as xdg-desktop-portal tells it: a Flatpak app by
/// the `/.flatpak-info` in its own root (`/proc/PID/root`; a sandboxed app
/// reaches the bus through xdg-dbus-proxy, whose process runs in the app's
/// sandbox with the same file), a Snap by its AppArmor label or its cgroup,
/// otherwise a program on the host. The bus gives the pid
/// (`GetConnectionCredentials`); Debian 12's dbus-daemon gives no pidfd, so
/// a process that exits and whose pid is reused at once could be taken for
/// another (docs/security.md says what that leaves open).
public enum CallerApps {
    /// The app behind `pid`, read from `/proc` (`procRoot` for tests).
    /// `rootsVisible`: whether other processes' roots can be entered at all
    /// (not from a user namespace of the daemon's own, `UserNamespace`).
    public static func app(
        ofProcess pid: UInt32, procRoot: String = "/proc", rootsVisible: Bool = UserNamespace.isInitial
    ) -> CallerApp {
        let dir = procRoot + "/" + String(pid)
        guard FileSystem.exists(dir) else { return .unknown }
        // As the portal does: no file (ENOENT) or a root we may not enter
        // (EACCES: a FUSE root, toolbox) is not Flatpak; any other failure is
        // not knowing, never "host". From a user namespace of the daemon's
        // own, every root is EACCES, a sandboxed app's too: not knowing.
        do {
            return flatpak(try FileSystem.readText(dir + "/root/.flatpak-info", maxBytes: 64 * 1024)) ?? .unknown
        } catch  where error.code == ENOENT || (error.code == EACCES && rootsVisible) {
        } catch {
            return .unknown
        }
        if let label = try? FileSystem.readText(dir + "/attr/current", maxBytes: 4096), let snap = snap(label: label) {
            return .snap(snap)
        }
        if let cgroup = try? FileSystem.readText(dir + "/cgroup", maxBytes: 64 * 1024), let snap = snap(cgroup: cgroup)
        {
            return .snap(snap)
        }
        return .host
    }

    /// `[Application] name=` of a `.flatpak-info` (`[Runtime] runtime=` has
    /// none: a runtime's own tools are not an app), when it is a D-Bus name.
    static func flatpak(_ text: String) -> CallerApp? {
        guard let name = KeyFile(parsing: text).value("name", in: "Application"), isAppID(name) else { return nil }
        return .flatpak(name)
    }

    /// `snap.NAME.APP (enforce)` → NAME (snapd's AppArmor profile names).
    static func snap(label: String) -> String? {
        let profile = label.split(separator: " ").first.map(String.init) ?? ""
        guard profile.hasPrefix("snap.") else { return nil }
        let name = profile.dropFirst(5).prefix { $0 != "." }
        return name.isEmpty ? nil : String(name)
    }

    /// A cgroup line ending `/snap.NAME.APP-….scope` → NAME (snapd's transient scopes).
    static func snap(cgroup: String) -> String? {
        for line in cgroup.split(separator: "\n") {
            guard let last = line.split(separator: "/").last, last.hasPrefix("snap."), last.hasSuffix(".scope") else {
                continue
            }
            let name = last.dropFirst(5).prefix { $0 != "." }
            if !name.isEmpty { return String(name) }
        }
        return nil
    }

    /// Flatpak's rule for an app id: a D-Bus well-known name of at least three elements.
    static func isAppID(_ s: String) -> Bool {
        !s.hasPrefix(":") && BusName(s) != nil && s.split(separator: ".").count >= 3
    }
}
