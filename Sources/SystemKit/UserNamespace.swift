/// Which user namespace this process runs in. A daemon in one of its own
/// (systemd's `PrivateUsers=`, a container) may not enter other processes'
/// roots under `/proc/PID/root` (the kernel wants `CAP_SYS_PTRACE` over
/// their namespace, which only an ancestor's owner has), so everything it
/// would learn there reads as "permission denied".
public enum UserNamespace {
    /// Whether this is the initial user namespace: its `uid_map` maps all of 0…2³²−2 onto itself.
    public static let isInitial: Bool = {
        guard let map = try? FileSystem.readText("/proc/self/uid_map", maxBytes: 4096) else { return true }
        let lines = map.split(separator: "\n")
        return lines.count == 1
            && lines[0].split(separator: " ", omittingEmptySubsequences: true) == ["0", "0", "4294967295"]
    }()
}
