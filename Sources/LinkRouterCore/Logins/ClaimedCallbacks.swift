/// The https callbacks pending sessions wait on, as the daemon publishes them
/// for `linkctl open`'s fallback: with no daemon reachable, a web link on one
/// of these is queued (it may be a login), any other goes to the browser.
/// Only match keys (scheme, host, path): nothing secret.
public struct ClaimedCallbacks: Sendable, Equatable {
    public let keys: Set<String>

    public init(keys: Set<String>) { self.keys = keys }

    /// One key per line.
    public init(text: String) {
        keys = Set(text.split(separator: "\n").map(String.init).filter { !$0.isEmpty })
    }

    public var text: String { keys.sorted().map { $0 + "\n" }.joined() }

    public func contains(uri: String) -> Bool {
        guard let u = try? URIReference.split(uri) else { return false }
        return keys.contains(CallbackURI.matchKey(for: u, loopback: false))
    }
}
