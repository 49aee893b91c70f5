import DBusKit
import Glibc
import SystemKit
import Testing

/// A real `linkrouterd` on a test's bus; stopped (SIGTERM, then SIGKILL after 5 s) when released.
final class DaemonProcess {
    let pid: Int32
    let logPath: String
    private var reaped = false
    private(set) var exitStatus: Int32?

    init(
        desktop: TestDesktop, arguments: [String] = [], waitForName: Bool = true, logName: String = "linkrouterd.log",
        executable: String = Paths.linkrouterd
    ) throws {
        logPath = desktop.root + "/" + logName
        pid = try Subprocess.spawn(
            [executable] + arguments, environment: desktop.environment,
            stdout: .file(logPath), stderr: .file(logPath))
        if waitForName {
            let probe = try DBusConnection(address: desktop.busAddress!)
            let owned = eventually(timeoutMilliseconds: 10_000) { Self.nameHasOwner(probe) || !self.isRunning }
            guard owned, isRunning else {
                throw SystemError("linkrouterd did not take its name; log: \(log)", code: ETIMEDOUT)
            }
        }
    }

    static func nameHasOwner(_ c: DBusConnection) -> Bool { c.nameHasOwner("org.linkrouter.LinkRouter1") }

    var log: String { (try? FileSystem.readText(logPath)) ?? "" }

    var isRunning: Bool {
        guard !reaped else { return false }
        var status: Int32 = 0
        let r = waitpid(pid, &status, WNOHANG)
        if r == pid {
            reaped = true
            exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
            return false
        }
        return true
    }

    /// Sends `signal` and waits up to `timeoutMilliseconds` for the exit status.
    @discardableResult
    func stop(signal: Int32 = SIGTERM, timeoutMilliseconds: Int = 5000) -> Int32? {
        guard isRunning else { return exitStatus }
        kill(pid, signal)
        if !eventually(timeoutMilliseconds: timeoutMilliseconds, { !isRunning }) {
            kill(pid, SIGKILL)
            _ = eventually(timeoutMilliseconds: 2000) { !isRunning }
        }
        return exitStatus
    }

    /// Waits for the process to exit by itself.
    func waitForExit(timeoutMilliseconds: Int = 5000) -> Int32? {
        _ = eventually(timeoutMilliseconds: timeoutMilliseconds) { !isRunning }
        return exitStatus
    }

    /// A clean exit, so a sanitized build's leak check runs and its report is read.
    deinit {
        stop()
        SanitizerReport.check(log, from: "linkrouterd")
    }
}
