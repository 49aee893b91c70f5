/// What the daemon has done since it started, for `linkctl status` and for
/// tests that must show something did *not* happen (no browser started, no
/// link routed twice) without sleeping: read after a reply, a count is exact.
struct Counters {
    var sessionsBegun: UInt64 = 0
    var sessionsRestored: UInt64 = 0
    var linksRouted: UInt64 = 0
    var linksRefused: UInt64 = 0
    var inboxLinks: UInt64 = 0
    var browsersStarted: UInt64 = 0
    var appsDelivered: UInt64 = 0
    var appsLaunched: UInt64 = 0
    var storeWriteFailures: UInt64 = 0

    /// The `Counters` property, in a fixed order.
    var entries: [(String, UInt64)] {
        [("sessions_begun", sessionsBegun), ("sessions_restored", sessionsRestored), ("links_routed", linksRouted),
         ("links_refused", linksRefused), ("inbox_links", inboxLinks), ("browsers_started", browsersStarted),
         ("apps_delivered", appsDelivered), ("apps_launched", appsLaunched),
         ("store_write_failures", storeWriteFailures)]
    }
}
