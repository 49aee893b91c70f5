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
    /// The `Name` and `Icon` of the desktop entry the sandbox exported for `app`'s verified id, for a prompt to show
    /// it as the person knows it: Flatpak's exports (the user's installation, then the system's), snapd's. Only those
    /// directories, which the sandbox manager writes: an entry of that id elsewhere (the user's own applications
    /// directory, which an app with access to the home directory could write) is not read. Nil for the host.
    public static func exportedFace(of app: CallerApp, directories: XDGDirectories = .fromEnvironment()) -> AppFace? {
        let candidates: [String]
        switch app {
        case .flatpak(let id):
            candidates = [directories.dataHome + "/flatpak", "/var/lib/flatpak"].map {
                $0 + "/exports/share/applications/" + id + ".desktop"
            }
        case .snap(let name): candidates = ["/var/lib/snapd/desktop/applications/" + name + "_" + name + ".desktop"]
        case .host, .unknown, .remote: return nil
        }
        for path in candidates {
            guard let text = try? FileSystem.readText(path, maxBytes: 64 * 1024) else { continue }
            let entry = DesktopEntry(id: FileSystem.baseName(path), path: path, text: text)
            return AppFace(name: entry.name, icon: entry.icon)
        }
        return nil
    }

    /// The app behind `pid`, read from `/proc` (`procRoot` for tests); `uid`: the connection's `UnixUserID`, as the
    /// bus gave it; `appearedAt`: when the connection's name appeared on the bus (`NameOwnerChanged`), in
    /// milliseconds of `CLOCK_BOOTTIME`, the clock `/proc/PID/stat`'s start time counts on. Fails closed (issue 36):
    /// the process must be alive (not a zombie, whose root is gone and reads as "no file") and have started no later
    /// than the name appeared (a pid reused since is another process); no `.flatpak-info` is the host only when its
    /// real uid is the connection's too (not a pid reused by another user's process); a root that cannot be entered
    /// (EACCES: also every root, from a user namespace of the daemon's own) and every other failure is not knowing,
    /// never "host". `strictly`: `appearedAt` is only a bound the name appeared before (the daemon began watching
    /// then), so a process that started in that very tick is not the one that connected.
    public static func app(
        ofProcess pid: UInt32, uid: UInt32?, appearedAt: Int64? = nil, strictly: Bool = false,
        procRoot: String = "/proc"
    ) -> CallerApp {
        let dir = procRoot + "/" + String(pid)
        guard FileSystem.exists(dir), let stat = ProcessStat(dir), stat.isAlive else { return .unknown }
        if let appearedAt {
            // Clock ticks (`CLK_TCK`, 100 a second here): a process that started in the tick the name appeared in
            // is taken as the one that connected; one that started later is not.
            let tick = appearedAt * ticksPerSecond / 1000
            guard let started = stat.startTicks, strictly ? started < tick : started <= tick else { return .unknown }
        }
        do {
            return flatpak(try FileSystem.readText(dir + "/root/.flatpak-info", maxBytes: 64 * 1024)) ?? .unknown
        } catch  where error.code == ENOENT {
        } catch {
            return .unknown
        }
        guard let uid, realUID(dir) == uid else { return .unknown }
        if let label = try? FileSystem.readText(dir + "/attr/current", maxBytes: 4096), let snap = snap(label: label) {
            return .snap(snap)
        }
        if let cgroup = try? FileSystem.readText(dir + "/cgroup", maxBytes: 64 * 1024), let snap = snap(cgroup: cgroup)
        {
            return .snap(snap)
        }
        return .host
    }

    /// `/proc/PID/stat`, read once, as bytes (its fields are ASCII after the `(comm)`, which may hold anything).
    struct ProcessStat {
        /// Field 3.
        let state: UInt8?
        /// Field 22, `starttime`: clock ticks after boot.
        let startTicks: Int64?

        init?(_ dir: String) {
            guard let bytes = try? FileSystem.read(dir + "/stat", maxBytes: 4096),
                let close = bytes.lastIndex(of: UInt8(ascii: ")"))
            else { return nil }
            // After "(comm)": field 3 is the state, so starttime is the 20th field from there.
            let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
            state = fields.first?.first
            startTicks = fields.count > 19 ? Int64(String(decoding: fields[19], as: UTF8.self)) : nil
        }

        /// Any state but Z, zombie, and X, dead.
        var isAlive: Bool { state != nil && state != UInt8(ascii: "Z") && state != UInt8(ascii: "X") }
    }

    /// A host program as the person knows it, for a prompt: the app id of the systemd scope the session manager
    /// started it in (`app-ID-RANDOM.scope`, or `app-LAUNCHER-ID-RANDOM.scope`, as xdg-desktop-portal reads it),
    /// else its executable's file name, else its `comm`. The program's own say: never an identity to trust.
    public static func program(ofProcess pid: UInt32, procRoot: String = "/proc") -> String {
        let dir = procRoot + "/" + String(pid)
        if let cgroup = try? FileSystem.readText(dir + "/cgroup", maxBytes: 64 * 1024), let id = scopeApp(cgroup) {
            return PrintableText.shown(id)
        }
        if let exe = FileSystem.readLink(dir + "/exe"), let name = exe.split(separator: "/").last {
            // linkctl's two halves are one program to the person: the front hands verbs to `linkctl-full` by exec.
            return name == LinkctlLayout.fullName ? "linkctl" : PrintableText.shown(String(name))
        }
        if let comm = try? FileSystem.readText(dir + "/comm", maxBytes: 64) {
            return PrintableText.shown(comm.split(separator: "\n").first.map(String.init) ?? comm)
        }
        return "an unknown program"
    }

    /// `…/app-[LAUNCHER-]ID-RANDOM.scope` → ID, when ID is an app id (systemd's desktop application naming).
    static func scopeApp(_ cgroup: String) -> String? {
        for line in cgroup.split(separator: "\n") {
            guard let last = line.split(separator: "/").last, last.hasPrefix("app-"), last.hasSuffix(".scope") else {
                continue
            }
            let parts = last.dropFirst(4).dropLast(6).split(separator: "-")
            if let id = parts.first(where: { isAppID(String($0)) }) { return String(id) }
        }
        return nil
    }

    /// `/proc/PID/stat`'s `starttime` (field 22): clock ticks after boot.
    public static func startTicks(_ dir: String) -> Int64? { ProcessStat(dir)?.startTicks }

    static let ticksPerSecond = Int64(sysconf(Int32(_SC_CLK_TCK)))

    /// The real uid on `/proc/PID/status`'s `Uid:` line.
    static func realUID(_ dir: String) -> UInt32? {
        guard let status = try? FileSystem.read(dir + "/status", maxBytes: 64 * 1024),
            let line = status.split(separator: UInt8(ascii: "\n")).first(where: { $0.starts(with: Array("Uid:".utf8)) })
        else { return nil }
        return line.split(whereSeparator: { $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: " ") }).dropFirst().first
            .flatMap { UInt32(String(decoding: $0, as: UTF8.self)) }
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
        for line in cgroup.utf8.split(separator: UInt8(ascii: "\n")) {
            guard let last = line.split(separator: UInt8(ascii: "/")).last, last.starts(with: Array("snap.".utf8)),
                last.reversed().starts(with: Array(".scope".utf8).reversed())
            else { continue }
            let name = last.dropFirst(5).prefix { $0 != UInt8(ascii: ".") }
            if !name.isEmpty { return String(decoding: name, as: UTF8.self) }
        }
        return nil
    }

    /// Flatpak's rule for an app id: a D-Bus well-known name of at least three elements.
    static func isAppID(_ s: String) -> Bool {
        !s.hasPrefix(":") && BusName(s) != nil && s.split(separator: ".").count >= 3
    }
}
