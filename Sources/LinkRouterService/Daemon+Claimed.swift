import LinkRouterCore
import LinkRouterFiles
import SystemKit

extension Daemon {
    /// Rewrites the claimed-callbacks list when the set of pending https
    /// callbacks changed, so `linkctl open` can queue, not browse, such a
    /// link while the daemon is down.
    func publishClaimedCallbacks() {
        guard router.claimedVersion != publishedClaimedVersion, let path = paths.claimedCallbacksFile else { return }
        do { try ClaimedCallbacksFile.write(router.claimedCallbacks, to: path) } catch {
            log.write(.warning, "Failed to publish the claimed callbacks to \(path): \(error)")
        }
        publishedClaimedVersion = router.claimedVersion
    }
}
