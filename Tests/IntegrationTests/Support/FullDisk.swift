import Glibc
import SystemKit
import Testing

/// A linkrouterd whose store can grow by only so much. As root, a tmpfs of
/// that size on its runtime directory: a real full disk (ENOSPC), which
/// every sanitizer build survives. Otherwise a file-size limit (EFBIG), the
/// same refusal to the daemon, but one ThreadSanitizer's runtime does not
/// survive (its shadow memory faults under RLIMIT_FSIZE).
final class FullDisk {
    let pid: Int32
    private let log: String
    private let mountPoint: String?

    /// `kilobytes` of room for the store; 0 fills the disk before the daemon starts.
    init(desktop: TestDesktop, kilobytes: Int, log: String) throws {
        self.log = log
        if geteuid() == 0 {
            let dir = desktop.runtimeDir + "/linkrouter"
            try FileSystem.makeDirectories(dir, permissions: 0o700)
            let r = try Subprocess.run([
                "mount", "-t", "tmpfs", "-o", "mode=0700,size=\(max(kilobytes, 16))k", "tmpfs", dir,
            ])
            guard r.status == 0 else { throw SystemError("mount failed: \(r.errorText)", code: EPERM) }
            mountPoint = dir
            if kilobytes == 0 { _ = try Subprocess.run(["dd", "if=/dev/zero", "of=" + dir + "/filler", "bs=4k"]) }
            pid = try Subprocess.spawn(
                [Paths.linkrouterd], environment: desktop.environment, stdout: .file(log), stderr: .file(log))
        } else {
            mountPoint = nil
            pid = try Subprocess.spawn(
                ["sh", "-c", "trap '' XFSZ; ulimit -f \(kilobytes * 2); exec \"$0\"", Paths.linkrouterd],
                environment: desktop.environment, stdout: .file(log), stderr: .file(log))
        }
    }

    /// A clean exit first, so a sanitized build's report is read, as for every daemon the tests start.
    deinit {
        Subprocess.stop(pid, name: "linkrouterd")
        SanitizerReport.check((try? FileSystem.readText(log)) ?? "", from: "linkrouterd")
        if let mountPoint { _ = try? Subprocess.run(["umount", "-l", mountPoint]) }
    }
}
