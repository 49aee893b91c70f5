import SystemKit

/// Links that `linkctl open` queued because no daemon could be reached: one
/// small private file each in `$XDG_RUNTIME_DIR/linkrouter/inbox/`, written
/// atomically (temp file, then rename). The daemon takes them at start and
/// whenever one arrives, routes each, then removes it.
final class Inbox {
    let directory: String
    private var watcher: DirectoryWatcher?

    /// Longest entry accepted: one URL plus a little.
    static let maxEntryBytes = 16 * 1024

    init(directory: String) throws(SystemError) {
        self.directory = directory
        try FileSystem.ensurePrivateDirectory(directory)
    }

    func start(on loop: EventLoop, _ route: @escaping (String) -> Void) throws(SystemError) {
        let w = try DirectoryWatcher(directory)
        w.attach(to: loop) { [weak self] in self?.drain(route) }
        watcher = w
        drain(route)
    }

    /// Routes every complete entry, oldest first (names start with the time).
    func drain(_ route: (String) -> Void) {
        for name in FileSystem.list(directory) where !name.hasPrefix(".") && name.hasSuffix(".link") {
            let path = directory + "/" + name
            let text: String
            do {
                text = String(decoding: try FileSystem.read(path, maxBytes: Self.maxEntryBytes, requirePrivate: true), as: UTF8.self)
            } catch {
                Log.warning("Dropping inbox entry \(name): \(error)")
                try? FileSystem.remove(path)
                continue
            }
            let link = text.hasSuffix("\n") ? String(text.dropLast()) : text
            // Routed, then removed: a crash in between routes it again at the
            // next start, where a callback is refused as a replay; nothing is lost.
            route(link)
            try? FileSystem.remove(path)
        }
    }
}
