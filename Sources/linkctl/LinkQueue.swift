import Glibc
import SystemKit

/// Writes a link to the daemon's inbox when no daemon can be reached: a
/// private temp file renamed into place, so the daemon never reads half of one.
enum LinkQueue {
    static func directory() -> String? {
        XDGDirectories.fromEnvironment().runtimeDir.map { $0 + "/linkrouter/inbox" }
    }

    /// At most this many links wait in the inbox (threat model X1: a flood of
    /// clicks with no daemon must not fill the runtime directory).
    static let capacity = 256

    /// Queues `link`; returns the entry's path.
    static func enqueue(_ link: String) throws(SystemError) -> String {
        guard let dir = directory() else { throw SystemError("queue the link", path: "$XDG_RUNTIME_DIR", code: ENOENT) }
        try FileSystem.ensurePrivateDirectory(FileSystem.directoryName(dir))
        try FileSystem.ensurePrivateDirectory(dir)
        guard FileSystem.list(dir).count < capacity else {
            throw SystemError("queue the link (the inbox already holds \(capacity) links: a flood?)", path: dir, code: ENOSPC)
        }
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let stamp = String(Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
        let padded = String(repeating: "0", count: max(0, 20 - stamp.count)) + stamp
        let random = SecureRandom.bytes(8).map { String($0, radix: 16) }.joined()
        let name = padded + "-" + String(getpid()) + "-" + random + ".link"
        let path = dir + "/" + name
        try FileSystem.writeAtomically(path, text: link + "\n", permissions: 0o600)
        return path
    }
}
