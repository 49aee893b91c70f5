import Foundation
import LinkRouterCore

/// A JWT's header or payload as a JSON object, decoded without a check (the
/// daemon checked it), for a test to read what the provider signed.
enum JWTParts {
    static func header(_ jwt: String) -> [String: Any] { part(jwt, 0) }
    static func payload(_ jwt: String) -> [String: Any] { part(jwt, 1) }

    private static func part(_ jwt: String, _ index: Int) -> [String: Any] {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let bytes = Base64URL.decode(parts[index].utf8) else { return [:] }
        return (try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]) ?? [:]
    }
}
