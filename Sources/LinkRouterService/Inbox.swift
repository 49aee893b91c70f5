import LinkRouterFiles
import SystemKit

/// The daemon's side of the inbox (`InboxDirectory`): it takes the queued
/// links at start and whenever one arrives, routes each, then removes it.
final class Inbox {
    let directory: InboxDirectory
    private var watcher: DirectoryWatcher?

    init(path: String) throws(SystemError) {
        directory = InboxDirectory(path: path)
        try FileSystem.ensurePrivateDirectory(path)
    }

    func start(on loop: EventLoop, _ route: @escaping (InboxDirectory.Entry) -> Void) throws(SystemError) {
        let w = try DirectoryWatcher(directory.path)
        w.attach(to: loop) { [weak self] in self?.drain(route) }
        watcher = w
        drain(route)
    }

    /// Routes every complete entry, oldest first.
    func drain(_ route: (InboxDirectory.Entry) -> Void) {
        for name in directory.entryNames() {
            let link: InboxDirectory.Entry
            do { link = try directory.read(name) } catch {
                Log.warning("Dropping inbox entry \(name): \(error)")
                directory.remove(name)
                continue
            }
            // Routed, then removed: a crash in between routes it again at the
            // next start, where a callback is refused as a replay; nothing is lost.
            route(link)
            directory.remove(name)
        }
    }
}
