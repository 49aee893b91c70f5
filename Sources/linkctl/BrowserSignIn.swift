import DBusKit
import LinkRouterAPI
import SystemKit

/// `BeginSession` for a sign-in the person finishes in a browser (`linkctl login`, `token --interactive`, kubectl's
/// interactive exec). A browser that cannot start (none set, its program gone) is said, and the sign-in is begun
/// again with none, so the person gets the URL to open elsewhere instead of a silent wait (gh and az print it too).
enum BrowserSignIn {
    /// The reply (the session's path and authorize URL), and whether a browser was opened for it.
    static func begin(_ client: DaemonClient, _ entries: [(String, DBusValue)]) throws(DaemonClient.Failure) -> (
        reply: [DBusValue], opened: Bool
    ) {
        let opens = entries.last { $0.0 == "open_browser" }?.1 != .boolean(false)
        do throws(DaemonClient.Failure) {
            return (try client.call("BeginSession", [.vardict(entries)]), opens)
        } catch {
            guard opens, error.code == .browserFailed else { throw error }
            StandardStreams.err("linkctl: the browser could not be started (\(error.text))\n")
            let without = entries.filter { $0.0 != "open_browser" } + [("open_browser", .boolean(false))]
            return (try client.call("BeginSession", [.vardict(without)]), false)
        }
    }
}
