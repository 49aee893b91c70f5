import Glibc
import SystemKit

/// A sandbox made as Flatpak makes one: processes in bubblewrap whose
/// `/.flatpak-info` names the app, and (for an app's own bus) the app's bus
/// through `xdg-dbus-proxy`, itself in a sandbox with the same file, so the
/// connection the daemon sees is the proxy's and the proxy's process carries
/// the app's id (xdg-desktop-portal reads it the same way, `/proc/PID/root`).
final class FlatpakSandbox {
    let desktop: TestDesktop
    let appID: String
    let info: String
    private var proxy: Int32?

    static let unavailable: String? = {
        for p in ["/usr/bin/bwrap", "/usr/bin/xdg-dbus-proxy"] where !FileSystem.isExecutable(p) {
            return "\(p) is missing (Debian: bubblewrap xdg-dbus-proxy); scripts/setup --test installs them"
        }
        return nil
    }()

    /// The directory of the Swift runtime this process loaded (a debug build's binaries load it too), unless it is
    /// under /usr already.
    static let swiftRuntime: String? = {
        guard let maps = try? FileSystem.readText("/proc/self/maps", maxBytes: 1 << 22) else { return nil }
        for line in maps.split(separator: "\n") {
            guard let slash = line.firstIndex(of: "/"), line.hasSuffix("/libswiftCore.so") else { continue }
            let path = String(line[slash...])
            let dir = String(path[..<path.lastIndex(of: "/")!])
            return dir.hasPrefix("/usr/") ? nil : dir
        }
        return nil
    }()

    init(desktop: TestDesktop, appID: String) throws {
        self.desktop = desktop
        self.appID = appID
        info = desktop.root + "/flatpak-info-" + appID
        try FileSystem.writeAtomically(
            info,
            text: """
                [Application]
                name=\(appID)
                runtime=runtime/org.freedesktop.Platform/x86_64/23.08

                [Instance]
                instance-id=\(getpid())

                """, permissions: 0o644)
    }

    /// `argv` run in bubblewrap with the app's `/.flatpak-info`; the test's directories are bound in.
    /// It dies with bubblewrap, as under Flatpak, so stopping bwrap leaves nothing running.
    func command(_ argv: [String]) -> [String] {
        [
            "bwrap", "--die-with-parent", "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc", "--symlink",
            "usr/lib", "/lib",
            "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin", "--proc", "/proc", "--dev", "/dev",
            "--bind", desktop.root, desktop.root, "--ro-bind", Paths.fixtures, Paths.fixtures, "--ro-bind", info,
            "/.flatpak-info",
            // linkctl as the app's own CLI: the build's binaries and the Swift runtime they load.
            "--ro-bind", Paths.bin, Paths.bin,
        ] + (Self.swiftRuntime.map { ["--ro-bind", $0, $0] } ?? []) + ["--"] + argv
    }

    /// Starts the app's filtered bus (`xdg-dbus-proxy --filter --talk=NAME…`, in
    /// the sandbox) and returns its address once its socket is there.
    func startProxy(talk names: [String]) throws -> String {
        let socket = desktop.root + "/flatpak-bus-" + appID
        let address = desktop.busAddress ?? ""
        proxy = try Subprocess.spawn(
            command(["/usr/bin/xdg-dbus-proxy", address, socket, "--filter"] + names.map { "--talk=" + $0 }),
            environment: desktop.environment, stdout: .file(socket + ".out"), stderr: .file(socket + ".err"))
        guard eventually(timeoutMilliseconds: 10_000, { FileSystem.status(socket)?.kind == .socket }) else {
            throw SystemError(
                "xdg-dbus-proxy did not start: \((try? FileSystem.readText(socket + ".err")) ?? "")", code: ETIMEDOUT)
        }
        return "unix:path=" + socket
    }

    deinit {
        if let proxy {
            Subprocess.stop(proxy, name: "xdg-dbus-proxy")
        }
    }
}
