import LinkRouterCore
import SystemKit

extension Daemon {
    /// Takes the queue of links that arrived while no daemon ran.
    func startInbox() {
        guard let dir = config.inboxDirectory else { return }
        do {
            let inbox = try Inbox(directory: dir)
            try inbox.start(on: loop) { [unowned self] link in
                let decision = self.router.decide(link, source: .link, now: self.now)
                _ = try? self.carryOut(decision, uri: link, via: "queued link")
            }
            self.inbox = inbox
        } catch {
            Log.error("Failed to watch the inbox \(dir): \(error); links queued while the daemon was down will wait until it restarts")
        }
    }
}
