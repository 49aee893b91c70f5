/// https, or http on a loopback host: where a provider may be (Keycloak,
/// Glewlwyd or Dex run for development on `http://localhost:…` have http
/// issuers; nothing else may) and where a token may be sent (git's request).
/// In a file of its own so that linkctl's front compiles it as it is.
public enum IssuerScheme {
    /// The loopback hosts, as a URI spells them (lowercase).
    public static let loopbackHosts = ["127.0.0.1", "[::1]", "localhost"]

    public static func allows(_ uri: URIReference) -> Bool {
        switch uri.normalizedScheme {
        case "https": return true
        case "http": return uri.host.map { loopbackHosts.contains(ASCII.lowercased($0)) } ?? false
        default: return false
        }
    }
}
