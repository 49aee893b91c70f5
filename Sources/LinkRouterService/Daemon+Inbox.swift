import LinkRouterCore
import SystemKit

extension Daemon {
    /// Takes the queue of links that arrived while no daemon ran.
    func startInbox() {
        guard let dir = paths.inboxDirectory else { return }
        do {
            let inbox = try Inbox(path: dir)
            try inbox.start(on: loop) { [unowned self] link in
                self.counters.inboxLinks += 1
                _ = try? self.execute(self.router.route(link, source: .link, via: "queued link", apps: self.currentApps(), now: self.now))
            }
            self.inbox = inbox
        } catch {
            Log.error("Failed to watch the inbox \(dir): \(error); links queued while the daemon was down will wait until it restarts")
        }
    }
}
