import Foundation
import Glibc
import SystemKit

/// Debian's openssh-server on 127.0.0.1 (Fixtures/sshd_inetd.py runs `sshd -i`
/// for each connection to a port the kernel picked), with a host key and a
/// user key made by the test: `ssh` logs in as this user with no password,
/// and sshd accepts `OIDC_SOCK` from the client (`AcceptEnv`), as an
/// administrator who wants forwarded agents found would set it.
final class LoopbackSSH {
    let pid: Int32
    let dir: String
    let port: String

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
        try FileSystem.makeDirectories(dir, permissions: 0o700)
        for key in ["host_key", "user_key"] {
            let r = try Subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", dir + "/" + key])
            guard r.status == 0 else { throw SystemError("ssh-keygen: \(r.errorText)", code: EIO) }
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
                AcceptEnv OIDC_SOCK
                PidFile none

                """, permissions: 0o600)
        let portFile = dir + "/port"
        pid = try Subprocess.spawn(
            ["/usr/bin/python3", Paths.fixtures + "/sshd_inetd.py", dir + "/sshd_config", portFile, dir + "/sshd.log"],
            environment: desktop.environment, stdout: .null, stderr: .file(dir + "/inetd.err"))
        guard eventually(timeoutMilliseconds: 10_000, { FileSystem.exists(portFile) }),
            let text = try? FileSystem.readText(portFile)
        else {
            Subprocess.stop(pid, name: "sshd_inetd.py")
            throw SystemError(
                "sshd_inetd.py did not listen: \((try? FileSystem.readText(dir + "/inetd.err")) ?? "")", code: ETIMEDOUT
            )
        }
        port = text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// ssh's arguments to log in here as this user (no configuration of the machine's read), then `command`.
    func arguments(_ command: [String]) -> [String] {
        [
            "-F", "/dev/null", "-p", port, "-i", dir + "/user_key", "-o", "IdentitiesOnly=yes", "-o",
            "UserKnownHostsFile=" + dir + "/known_hosts", "-o", "StrictHostKeyChecking=accept-new", "-o",
            "BatchMode=yes", "-o", "LogLevel=ERROR", "127.0.0.1",
        ] + command
    }

    /// What sshd said (its `-e` log).
    var log: String { (try? FileSystem.readText(dir + "/sshd.log")) ?? "" }

    deinit {
        Subprocess.stop(pid, name: "sshd_inetd.py")
    }
}
