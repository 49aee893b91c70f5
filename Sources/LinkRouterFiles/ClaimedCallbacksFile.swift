public import LinkRouterCore
import SystemKit

/// The claimed-callbacks list on disk: the daemon writes it whenever the set
/// of pending https callbacks changes; `linkctl open` reads it when no
/// daemon answers, to queue (not browse) a link that may be a login.
public enum ClaimedCallbacksFile {
    /// Longest file read back.
    static let maxBytes = 1 << 20

    /// The list the daemon last published (empty if none or unreadable).
    public static func read(_ path: String?) -> ClaimedCallbacks {
        guard let path, let bytes = try? FileSystem.read(path, maxBytes: maxBytes, requirePrivate: true) else {
            return ClaimedCallbacks(keys: [])
        }
        return ClaimedCallbacks(text: String(decoding: bytes, as: UTF8.self))
    }

    /// Replaces the list atomically, private to the user.
    public static func write(_ callbacks: ClaimedCallbacks, to path: String) throws(SystemError) {
        try FileSystem.ensurePrivateDirectory(FileSystem.directoryName(path))
        try FileSystem.writeAtomically(path, text: callbacks.text, permissions: 0o600)
    }
}
