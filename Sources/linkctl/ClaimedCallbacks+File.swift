import LinkRouterCore
import SystemKit

extension ClaimedCallbacks {
    /// The list the daemon last published (empty if none).
    static func read() -> ClaimedCallbacks {
        guard let runtime = XDGDirectories.fromEnvironment().runtimeDir,
              let bytes = try? FileSystem.read(runtime + "/linkrouter/claimed-callbacks", maxBytes: 1 << 20, requirePrivate: true)
        else { return ClaimedCallbacks(keys: []) }
        return ClaimedCallbacks(text: String(decoding: bytes, as: UTF8.self))
    }
}
