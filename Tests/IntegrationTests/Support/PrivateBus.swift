import DBusKit
import DesktopIntegration
import Glibc
import SystemKit

/// A real `dbus-daemon` of the test's own, on a socket in the test's
/// directory, optionally with a service directory for D-Bus activation.
final class PrivateBus {
    let address: String
    let pid: Int32
    let serviceDirectory: String
    let logPath: String

    init(desktop: TestDesktop, activation: Bool = false) throws {
        let dir = desktop.root + "/bus"
        try FileSystem.makeDirectories(dir + "/services", permissions: 0o700)
        let socket = dir + "/socket"
        serviceDirectory = dir + "/services"
        logPath = dir + "/dbus-daemon.log"
        address = "unix:path=" + socket
        let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <keep_umask/>
              <listen>\(address)</listen>
              <auth>EXTERNAL</auth>
              \(activation ? "<servicedir>\(serviceDirectory)</servicedir>" : "")
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>

            """
        try FileSystem.writeAtomically(dir + "/bus.conf", text: config, permissions: 0o600)
        pid = try Subprocess.spawn(
            ["dbus-daemon", "--nofork", "--nopidfile", "--config-file=" + dir + "/bus.conf"],
            environment: desktop.environment, stdout: .file(logPath), stderr: .file(logPath))
        // The socket file appears at bind(), a moment before listen(): wait until a client gets in.
        guard
            eventually(
                timeoutMilliseconds: 5000,
                { FileSystem.status(socket)?.kind == .socket && (try? DBusConnection(address: address)) != nil })
        else {
            kill(pid, SIGKILL)
            throw SystemError("dbus-daemon did not start", path: logPath, code: ETIMEDOUT)
        }
        desktop.busAddress = address
    }

    /// Writes the activation file `linkctl install` writes, for the daemon in `bindir`.
    func installService(bindir: String) throws {
        try FileSystem.writeAtomically(
            serviceDirectory + "/org.linkrouter.LinkRouter1.service",
            text: Installation.serviceFile(bindir: bindir), permissions: 0o644)
    }

    deinit {
        Subprocess.stop(pid, name: "dbus-daemon")
    }
}
