import Glibc

/// The listening sockets systemd passed at start (`sd_listen_fds(3)`'s
/// protocol, without libsystemd): `LISTEN_PID` must be this process,
/// `LISTEN_FDS` sockets from descriptor 3, named by `LISTEN_FDNAMES`
/// (`FileDescriptorName=` in the socket unit). Taken once: the variables are
/// removed so no program the daemon starts inherits them, and the descriptors
/// made close-on-exec.
public enum SocketActivation {
    /// The passed descriptors by name (`unknown` for one systemd did not name).
    public static func take() -> [String: Int32] {
        defer {
            unsetenv("LISTEN_PID")
            unsetenv("LISTEN_FDS")
            unsetenv("LISTEN_FDNAMES")
        }
        guard let pid = Environment.get("LISTEN_PID").flatMap({ Int32($0) }), pid == getpid(),
            let count = Environment.get("LISTEN_FDS").flatMap({ Int32($0) }), count > 0, count < 64
        else { return [:] }
        let names = (Environment.get("LISTEN_FDNAMES") ?? "").split(separator: ":", omittingEmptySubsequences: false)
        var out: [String: Int32] = [:]
        for i in 0..<count {
            let fd = 3 + i
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            let name = Int(i) < names.count && !names[Int(i)].isEmpty ? String(names[Int(i)]) : "unknown"
            out[name] = fd
        }
        return out
    }
}
