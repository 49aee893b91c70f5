import Glibc
import SystemKit

/// Debian's openssh-server on 127.0.0.1 (Fixtures/sshd_inetd.py, which makes
/// its keys and configuration and runs `sshd -i` for each connection to a
/// port the kernel picked): `ssh` logs in as this user with no password.
final class LoopbackSSH {
    let pid: Int32
    let dir: String
    /// ssh's options to log in here, before the destination (the fixture's `ssh_options`).
    let options: [String]

    static let unavailable: String? = {
        guard FileSystem.isExecutable("/usr/sbin/sshd"), FileSystem.isExecutable("/usr/bin/ssh") else {
            return "/usr/sbin/sshd is missing (Debian: openssh-server); scripts/setup --test installs it"
        }
        // sshd's privilege separation directory: made by its package's service, which containers do not start.
        if !FileSystem.isDirectory("/run/sshd") {
            guard getuid() == 0, (try? FileSystem.makeDirectories("/run/sshd", permissions: 0o755)) != nil else {
                return "/run/sshd is missing and only root can make it"
            }
        }
        return nil
    }()

    init(desktop: TestDesktop) throws {
        dir = desktop.root + "/ssh"
        pid = try Subprocess.spawn(
            ["/usr/bin/python3", Paths.fixtures + "/sshd_inetd.py", dir], environment: desktop.environment,
            stdout: .null, stderr: .file(desktop.root + "/sshd_inetd.err"))
        let file = dir + "/ssh_options"
        guard eventually(timeoutMilliseconds: 10_000, { FileSystem.exists(file) }),
            let text = try? FileSystem.readText(file)
        else {
            Subprocess.stop(pid, name: "sshd_inetd.py")
            throw SystemError(
                "sshd_inetd.py did not listen: \((try? FileSystem.readText(desktop.root + "/sshd_inetd.err")) ?? "")",
                code: ETIMEDOUT)
        }
        options = text.split(separator: "\n").map(String.init)
    }

    /// ssh's arguments to log in here as this user, then `command`.
    func arguments(_ command: [String]) -> [String] { options + ["127.0.0.1"] + command }

    /// What sshd said (its `-e` log).
    var log: String { (try? FileSystem.readText(dir + "/sshd.log")) ?? "" }

    deinit {
        Subprocess.stop(pid, name: "sshd_inetd.py")
    }
}
