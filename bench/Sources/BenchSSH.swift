import Glibc
import SystemKit

/// Debian's sshd on 127.0.0.1 for the forward's row, as the tests run it
/// (Fixtures/sshd_inetd.py: its keys and configuration made there, `sshd -i`
/// per connection on a port the kernel picked).
final class BenchSSH {
    let pid: Int32
    /// ssh's options to log in there, before the destination.
    let options: [String]

    /// Why it cannot run here, or nil.
    static var unavailable: String? {
        guard FileSystem.isExecutable("/usr/sbin/sshd") else { return "no /usr/sbin/sshd (Debian: openssh-server)" }
        if !FileSystem.isDirectory("/run/sshd") {
            guard getuid() == 0, (try? FileSystem.makeDirectories("/run/sshd", permissions: 0o755)) != nil else {
                return "/run/sshd is missing and only root can make it"
            }
        }
        return nil
    }

    init(_ w: BenchWorld, fixtures: String) throws {
        let dir = w.root + "/ssh"
        pid = try Subprocess.spawn(
            ["/usr/bin/python3", fixtures + "/sshd_inetd.py", dir], environment: w.environment, stdout: .null,
            stderr: .file(w.root + "/sshd_inetd.err"))
        let file = dir + "/ssh_options"
        guard w.wait({ FileSystem.exists(file) }), let text = try? FileSystem.readText(file) else {
            Subprocess.stop(pid, name: "sshd_inetd.py")
            throw BenchError("sshd_inetd.py did not listen")
        }
        options = text.split(separator: "\n").map(String.init)
    }

    deinit { Subprocess.stop(pid, name: "sshd_inetd.py") }
}
