/// What a narrower token is for (issue 37): a subset of the account's scope
/// (RFC 6749 §6: a refresh may ask for less), the resources it is for (RFC
/// 8707 §2, at the token endpoint) and an audience for providers that take
/// that parameter instead. The empty target is the account's own token.
///
/// Each target's token is kept in the daemon's memory and handed out like the
/// account's own; it is got by a refresh with the account's one refresh token
/// (its one flight), so a rotating refresh token stays one chain.
public struct TokenTarget: Sendable, Hashable, CustomStringConvertible {
    /// Scope tokens sorted and without repeats, joined by one space; nil: the account's.
    public let scope: String?
    /// Sorted, without repeats.
    public let resources: [String]
    public let audience: String?

    /// The account's own token.
    public init() {
        scope = nil
        resources = []
        audience = nil
    }

    private init(scope: String?, resources: [String], audience: String?) {
        self.scope = scope
        self.resources = resources
        self.audience = audience
    }

    public var isOwn: Bool { scope == nil && resources.isEmpty && audience == nil }

    /// The longest audience a caller may ask for: an audience is an identifier (a client id, a URL), and a consent
    /// prompt shows it to the person.
    public static let maxAudienceBytes = 256

    /// The request's target, checked: `scope` within `granted` (the scope the account's tokens carry, else the one it
    /// asked for at sign-in), each resource an absolute URI without fragment, the audience printable.
    public static func make(
        scope: String?, resources: [String], audience: String?, granted: String, account: String
    ) throws(RouterError) -> TokenTarget {
        var narrowed: String?
        if let scope {
            guard OAuthText.isScope(scope) else {
                throw .invalid("scope must be space-separated tokens of printable ASCII (RFC 6749 §3.3)")
            }
            let asked = Set(scope.split(separator: " ").map(String.init))
            let has = Set(granted.split(separator: " ").map(String.init))
            let beyond = asked.subtracting(has).sorted()
            guard beyond.isEmpty else {
                throw .invalid(
                    "scope \(beyond.joined(separator: " ")) is not within \(account)'s (\(granted)); a narrower token asks for a subset of it"
                )
            }
            narrowed = asked.sorted().joined(separator: " ")
        }
        for r in resources {
            // RFC 8707 §2: an absolute URI with no fragment.
            guard let uri = try? URIReference.strict(r, maxLength: 2048), uri.fragment == nil, uri.authority != nil
            else {
                throw .invalid("resource must be an absolute URI without a fragment (RFC 8707 §2), not \(r)")
            }
        }
        if let audience, !OAuthText.isVisibleText(audience) || audience.isEmpty {
            throw .invalid("audience must be printable ASCII")
        }
        // A consent prompt shows it (issue 44): a page of an app's text is no audience.
        if let audience, audience.utf8.count > maxAudienceBytes {
            throw .invalid("audience is at most \(maxAudienceBytes) bytes, not \(audience.utf8.count)")
        }
        return TokenTarget(scope: narrowed, resources: Array(Set(resources)).sorted(), audience: audience)
    }

    /// The scope a token for a resource that lists `listed` (RFC 9728 `scopes_supported`) is asked with: those of
    /// them `granted` holds, in its order, when that is some but not all of it; else nil (the account's own scope:
    /// the resource lists none, or all the account holds, or none of it, when narrowing could only refuse).
    public static func within(_ listed: [String], granted: String) -> String? {
        let held = granted.split(separator: " ").map(String.init)
        let both = held.filter { listed.contains($0) }
        return both.isEmpty || both.count == held.count ? nil : both.joined(separator: " ")
    }

    /// The refresh request's extra form fields (RFC 6749 §6 `scope`, RFC 8707 `resource`, `audience`).
    public var formFields: [(String, String)] {
        (scope.map { [("scope", $0)] } ?? []) + resources.map { ("resource", $0) }
            + (audience.map { [("audience", $0)] } ?? [])
    }

    /// Whether the scope a provider answered with (`answered`; none said: the one asked for, RFC 6749 §5.1) is within
    /// what was asked.
    public func allows(_ answered: String?) -> Bool {
        guard let scope, let answered else { return true }
        return Set(answered.split(separator: " ")).isSubset(of: Set(scope.split(separator: " ")))
    }

    public var description: String {
        isOwn
            ? "its own token"
            : ([
                scope.map { "scope \($0)" }, resources.isEmpty ? nil : "resource " + resources.joined(separator: " "),
                audience.map { "audience \($0)" },
            ] as [String?]).compactMap { $0 }.joined(separator: ", ")
    }
}
