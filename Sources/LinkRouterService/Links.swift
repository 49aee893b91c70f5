import LinkRouterCore
import SystemKit

/// The links component: where links come in besides the loopback
/// listeners (the bus's `Route`, the inbox linkctl fills while no daemon
/// runs), the flood limit they share (threat model X1), and their counts.
final class Links {
    private var limiter: RateLimiter
    private let inboxDirectory: String?
    private var inbox: Inbox?
    private(set) var routed: UInt64 = 0
    private(set) var refused: UInt64 = 0
    private(set) var queued: UInt64 = 0
    /// Links the inbox brought that their call had brought already, or the other way round (issue 44).
    private(set) var duplicates: UInt64 = 0
    /// The clicks routed lately: a link queued after its call went unanswered is routed once.
    private var ledger = ClickLedger()
    /// Links the flood limit refused (threat model X1).
    var flooded: UInt64 { UInt64(limiter.dropped) }

    init(maxPerSecond: Int, inboxDirectory: String?) {
        limiter = RateLimiter(perSecond: maxPerSecond)
        self.inboxDirectory = inboxDirectory
    }

    /// Whether one more link may be routed this second; the refusal says why.
    func admit() -> RouterError? {
        guard limiter.allow() else {
            return RouterError(.limitsExceeded, "too many links in one second; this one was refused, try again")
        }
        return nil
    }

    /// What the log says once a flood is being refused.
    var floodLine: String {
        "Route flood: refusing links beyond \(limiter.perSecond) a second (\(limiter.dropped) refused so far)"
    }

    /// Whether the click `id` is met for the first time; a second copy is counted and goes no further.
    func firstTime(_ id: ClickID) -> Bool {
        if ledger.firstTime(id) { return true }
        duplicates += 1
        return false
    }

    /// Counts a link by what became of it.
    func count(_ reply: Transition.Reply) {
        if case .refused = reply { refused += 1 } else { routed += 1 }
    }

    /// Takes the queue of links that arrived while no daemon ran, now and whenever one arrives.
    func startInbox(on loop: EventLoop, _ route: @escaping (String) -> Void) {
        guard let inboxDirectory else { return }
        do {
            let inbox = try Inbox(path: inboxDirectory)
            try inbox.start(on: loop) { [unowned self] entry in
                // A link whose call reached this daemon after all was routed then: not again.
                if let id = entry.sentAs, !firstTime(id) {
                    Log.info("Inbox link sent as \(id.text) was routed already, from its call; dropped")
                    return
                }
                queued += 1
                route(entry.link)
            }
            self.inbox = inbox
        } catch {
            Log.error(
                "Failed to watch the inbox \(inboxDirectory): \(error); links queued while the daemon was down will wait until it restarts"
            )
        }
    }
}
