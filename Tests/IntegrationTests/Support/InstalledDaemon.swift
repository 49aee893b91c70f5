import DBusKit
import Glibc
import LinkRouterAPI
import SystemKit
import Testing

/// `linkrouterd` as a package installs it: a copy in a directory of the
/// test's, which the bus's activation file names and an upgrade replaces.
struct InstalledDaemon {
    let executable: String

    init(desktop: TestDesktop, bus: PrivateBus) throws {
        let bindir = desktop.root + "/installed"
        executable = bindir + "/linkrouterd"
        try FileSystem.makeDirectories(bindir, permissions: 0o755)
        let r = try desktop.run(["cp", Paths.linkrouterd, executable])
        guard r.status == 0 else { throw SystemError("cp linkrouterd: \(r.errorText)", code: EIO) }
        try bus.installService(bindir: bindir)
    }

    /// What dpkg does to a file it upgrades: the new one is written beside it, then renamed over it.
    func upgrade(_ desktop: TestDesktop) throws {
        let r = try desktop.run([
            "sh", "-c", "cp \"$0\" \"$1.dpkg-new\" && mv -f \"$1.dpkg-new\" \"$1\"", Paths.linkrouterd, executable,
        ])
        guard r.status == 0 else { throw SystemError("the upgrade's rename: \(r.errorText)", code: EIO) }
    }

    /// The pid that owns the daemon's name, once someone does (within 10 s).
    static func owner(_ probe: DBusConnection) -> UInt32? {
        var pid: UInt32?
        eventually(timeoutMilliseconds: 10_000) {
            guard let m = try? BusProxy.bus.message("GetConnectionUnixProcessID", [.string(API.busName.rawValue)]),
                case .uint32(let p)? = try? probe.callArguments(m).first
            else { return false }
            pid = p
            return true
        }
        return pid
    }
}
