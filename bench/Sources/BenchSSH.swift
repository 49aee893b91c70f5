import Glibc
import SystemKit

/// Debian's sshd on 127.0.0.1 for the forward's row, as the tests run it
/// (Fixtures/sshd_inetd.py: `sshd -i` per connection on a port the kernel
/// picked), with keys made here; and one ssh connection to it kept open as a
/// control master, so the rows measure the requests, not ssh's handshakes.
final class BenchSSH {
    let pid: Int32
    let dir: String
    let port: String

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
        dir = w.root + "/ssh"
        try FileSystem.makeDirectories(dir, permissions: 0o700)
        for key in ["host_key", "user_key"] {
            let r = try Subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", dir + "/" + key])
            guard r.status == 0 else { throw BenchError("ssh-keygen: \(r.errorText)") }
        }
        try FileSystem.writeAtomically(
            dir + "/authorized_keys", text: try FileSystem.readText(dir + "/user_key.pub"), permissions: 0o600)
        try FileSystem.writeAtomically(
            dir + "/sshd_config",
            text: """
                HostKey \(dir)/host_key
                AuthorizedKeysFile \(dir)/authorized_keys
                StrictModes no
                UsePAM no
                PasswordAuthentication no
                KbdInteractiveAuthentication no
                PermitRootLogin prohibit-password
                AllowStreamLocalForwarding yes
                StreamLocalBindUnlink yes
                PidFile none

                """, permissions: 0o600)
        pid = try Subprocess.spawn(
            ["/usr/bin/python3", fixtures + "/sshd_inetd.py", dir + "/sshd_config", dir + "/port", dir + "/sshd.log"],
            environment: w.environment, stdout: .null, stderr: .file(dir + "/inetd.err"))
        let portFile = dir + "/port"
        guard w.wait({ FileSystem.exists(portFile) }), let text = try? FileSystem.readText(portFile)
        else {
            Subprocess.stop(pid, name: "sshd_inetd.py")
            throw BenchError("sshd_inetd.py did not listen")
        }
        port = String(text.filter { $0.isNumber })
    }

    /// ssh's options to log in here (none of the machine's configuration read), before the destination.
    var options: [String] {
        [
            "-F", "/dev/null", "-p", port, "-i", dir + "/user_key", "-o", "IdentitiesOnly=yes", "-o",
            "UserKnownHostsFile=" + dir + "/known_hosts", "-o", "StrictHostKeyChecking=accept-new", "-o",
            "BatchMode=yes", "-o", "LogLevel=ERROR",
        ]
    }

    deinit { Subprocess.stop(pid, name: "sshd_inetd.py") }
}
