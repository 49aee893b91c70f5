import Glibc
public import SystemKit

/// The queue of links `linkctl open` could not hand to a daemon: one small
/// private file each, written atomically (temp file, then rename), named so
/// that a sort by name is arrival order. linkctl writes; the daemon reads,
/// routes and removes.
public struct InboxDirectory: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    /// At most this many links wait (threat model X1: a flood of clicks with
    /// no daemon must not fill the runtime directory).
    public static let capacity = 256
    /// Longest entry read back: one URL plus a little.
    public static let maxEntryBytes = 16 * 1024

    /// Queues `link`; returns the entry's path.
    public func enqueue(_ link: String) throws(SystemError) -> String {
        try FileSystem.ensurePrivateDirectory(FileSystem.directoryName(path))
        try FileSystem.ensurePrivateDirectory(path)
        guard entryNames().count < Self.capacity else {
            throw SystemError(
                "queue the link (the inbox already holds \(Self.capacity) links: a flood?)", path: path, code: ENOSPC)
        }
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let stamp = String(Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
        let padded = String(repeating: "0", count: max(0, 20 - stamp.count)) + stamp
        let random = SecureRandom.bytes(8).map { String($0, radix: 16) }.joined()
        let entry = path + "/" + padded + "-" + String(getpid()) + "-" + random + ".link"
        try FileSystem.writeAtomically(entry, text: link + "\n", permissions: 0o600)
        return entry
    }

    /// The complete entries, oldest first (a temp file being written starts with a dot).
    public func entryNames() -> [String] {
        FileSystem.list(path).filter { !$0.hasPrefix(".") && $0.hasSuffix(".link") }.sorted()
    }

    /// The link in one entry; an unreadable or foreign-owned one is an error.
    public func read(_ name: String) throws(SystemError) -> String {
        let text = String(
            decoding: try FileSystem.read(path + "/" + name, maxBytes: Self.maxEntryBytes, requirePrivate: true),
            as: UTF8.self)
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }

    public func remove(_ name: String) { try? FileSystem.remove(path + "/" + name) }
}
