import Glibc
public import LinkRouterCore
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

    /// One queued link, and the call it was first sent as when that call went unanswered (`ClickID`): the daemon
    /// routes whichever copy it meets first.
    public struct Entry: Sendable, Equatable {
        public let link: String
        public let sentAs: ClickID?
    }

    /// The second line of an entry whose link was sent before (`sent-as :1.42 7`).
    static let sentAsPrefix = "sent-as "

    /// Queues `link` (`sentAs`: the unanswered call it went out as); returns the entry's path.
    public func enqueue(_ link: String, sentAs: ClickID? = nil) throws(SystemError) -> String {
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
        try FileSystem.writeAtomically(
            entry, text: link + "\n" + (sentAs.map { Self.sentAsPrefix + $0.text + "\n" } ?? ""), permissions: 0o600)
        return entry
    }

    /// The complete entries, oldest first (a temp file being written starts with a dot).
    public func entryNames() -> [String] {
        FileSystem.list(path).filter { !$0.hasPrefix(".") && $0.hasSuffix(".link") }.sorted()
    }

    /// One entry; an unreadable or foreign-owned one is an error. An entry of one line (every entry before issue
    /// 44, and every link no call carried) has no `sentAs`.
    public func read(_ name: String) throws(SystemError) -> Entry {
        let text = String(
            decoding: try FileSystem.read(path + "/" + name, maxBytes: Self.maxEntryBytes, requirePrivate: true),
            as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let sentAs =
            lines.count > 1 && lines[1].hasPrefix(Self.sentAsPrefix)
            ? ClickID(text: String(lines[1].dropFirst(Self.sentAsPrefix.count))) : nil
        return Entry(link: String(lines.first ?? ""), sentAs: sentAs)
    }

    public func remove(_ name: String) { try? FileSystem.remove(path + "/" + name) }
}
