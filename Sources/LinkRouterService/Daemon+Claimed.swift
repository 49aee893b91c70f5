import LinkRouterCore
import SystemKit

extension Daemon {
    /// Rewrites the claimed-callbacks list when the set of pending https
    /// callbacks changed, so `linkctl open` can queue, not browse, such a
    /// link while the daemon is down.
    func publishClaimedCallbacks() {
        guard router.claimedVersion != publishedClaimedVersion, let path = config.claimedCallbacksPath,
              let dir = config.runtimeDirectory else { return }
        do {
            try FileSystem.ensurePrivateDirectory(dir)
            try FileSystem.writeAtomically(path, text: router.claimedCallbacks.text, permissions: 0o600)
            publishedClaimedVersion = router.claimedVersion
        } catch {
            log.write(.warning, "Failed to publish the claimed callbacks to \(path): \(error)")
            publishedClaimedVersion = router.claimedVersion
        }
    }
}
