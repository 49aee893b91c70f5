import DBusKit
import Freedesktop
import Glibc
import LinkRouterAPI
import SystemKit

/// The benchmark's own desktop: a private bus (with an activation directory),
/// temporary XDG directories, a registered scheme, a trivial browser, and a daemon.
final class BenchWorld {
    let root: String
    let bin: String
    var busPID: Int32 = 0
    var daemonPID: Int32 = 0
    var address: String { "unix:path=" + root + "/bus/socket" }
    var runtime: String { root + "/run" }
    var applications: String { root + "/home/.local/share/applications" }
    var marker: String { root + "/marker" }

    init(root: String, bin: String) throws {
        self.root = root
        self.bin = bin
        for d in [
            root + "/home/.local/share/applications", root + "/home/.config", root + "/home/.local/state",
            root + "/bus/services", root + "/bin",
        ] {
            try FileSystem.makeDirectories(d, permissions: 0o700)
        }
        try FileSystem.ensurePrivateDirectory(runtime)
    }

    /// Added to `environment` (a launcher's desktop, say KDE's).
    var extraEnvironment: [String] = []

    var environment: [String] {
        extraEnvironment + [
            "HOME=" + root + "/home", "XDG_DATA_HOME=" + root + "/home/.local/share",
            "XDG_CONFIG_HOME=" + root + "/home/.config",
            "XDG_STATE_HOME=" + root + "/home/.local/state", "XDG_RUNTIME_DIR=" + runtime,
            "XDG_DATA_DIRS=" + root + "/home/.local/share:/usr/share", "DISPLAY=:99",
            "PATH=" + root + "/bin:/usr/bin:/bin",
            "DBUS_SESSION_BUS_ADDRESS=" + address, "LANG=C.UTF-8",
        ]
    }

    func startBus() throws {
        try FileSystem.writeAtomically(
            root + "/bus/bus.conf",
            text: """
                <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
                <busconfig><type>session</type><keep_umask/><listen>\(address)</listen><auth>EXTERNAL</auth>
                <servicedir>\(root)/bus/services</servicedir>
                <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
                <limit name="max_completed_connections">10000</limit><limit name="max_connections_per_user">10000</limit>
                </busconfig>

                """)
        busPID = try Subprocess.spawn(
            ["dbus-daemon", "--nofork", "--nopidfile", "--config-file=" + root + "/bus/bus.conf"],
            environment: environment, stdout: .null, stderr: .file(root + "/bus.log"))
        // The socket file appears at bind(), a moment before listen(): wait until a client gets in.
        guard
            wait({
                FileSystem.status(self.root + "/bus/socket")?.kind == .socket
                    && (try? DBusConnection(address: self.address)) != nil
            })
        else {
            throw BenchError("dbus-daemon did not start")
        }
    }

    /// The daemon with `extra` options, run by `wrapper` (valgrind, say) when one is given.
    func startDaemon(_ extra: [String] = [], wrapper: [String] = [], milliseconds: Int = 10_000) throws {
        daemonPID = try Subprocess.spawn(
            wrapper + [
                bin + "/linkrouterd", "--max-pending", "300000", "--max-pending-per-client", "300000",
                "--max-routes-per-second", "10000000",
            ] + extra,
            environment: environment, stdout: .null, stderr: .file(root + "/linkrouterd.log"))
        let c = try DBusConnection(address: address)
        guard wait({ c.nameHasOwner(API.busName.rawValue) }, milliseconds: milliseconds) else {
            throw BenchError(
                "linkrouterd did not start: " + ((try? FileSystem.readText(root + "/linkrouterd.log")) ?? ""))
        }
    }

    func stopDaemon() {
        guard daemonPID > 0 else { return }
        Subprocess.stop(daemonPID, name: "the bench's linkrouterd")
        daemonPID = 0
    }

    func wait(_ condition: () -> Bool, milliseconds: Int = 10_000) -> Bool {
        let deadline = Clock.monotonicMilliseconds() + Int64(milliseconds)
        while Clock.monotonicMilliseconds() < deadline {
            if condition() { return true }
            Clock.sleep(milliseconds: 2)
        }
        return condition()
    }

    /// A desktop entry and mimeapps default.
    func entry(_ id: String, exec: String, types: [String]) throws {
        try FileSystem.writeAtomically(
            applications + "/" + id,
            text:
                "[Desktop Entry]\nType=Application\nName=\(id)\nExec=\(exec)\nMimeType=\(types.map { $0 + ";" }.joined())\n",
            permissions: 0o644)
        let list = root + "/home/.config/mimeapps.list"
        try FileSystem.writeAtomically(
            list, text: MimeApps.settingDefault(id, for: types, in: try? FileSystem.readText(list)), permissions: 0o644)
    }

    func run(_ argv: [String]) throws -> Subprocess.Outcome { try Subprocess.run(argv, environment: environment) }

    /// `argv` with `input` on its standard input.
    func run(_ argv: [String], input: String) throws -> Subprocess.Outcome {
        try FileSystem.writeAtomically(root + "/stdin", text: input, permissions: 0o600)
        return try run(["/bin/sh", "-c", "exec \"$@\" < \"$0\"", root + "/stdin"] + argv)
    }

    deinit {
        stopDaemon()
        if busPID > 0 { Subprocess.stop(busPID, name: "the bench's dbus-daemon") }
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}
