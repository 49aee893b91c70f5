/// Which app takes which links: each app's schemes and https claims, as the
/// daemon found them (DesktopIntegration reads the desktop entries and the
/// install record). Pure: the router asks it, given a link.
public struct AppDirectory: Sendable, Equatable {
    /// Scheme (lowercase) → the app linkrouter hands its links to.
    public var schemes: [String: LinkApp]
    /// Every usable claim, longest prefix first.
    public private(set) var claims: [HTTPSClaim]
    /// Hosts the user told linkrouter to leave to the browser: claims on them are ignored.
    public var leftToBrowser: Set<String>

    public init(schemes: [String: LinkApp] = [:], claims: [HTTPSClaim] = [], leftToBrowser: Set<String> = []) {
        self.schemes = schemes
        self.leftToBrowser = leftToBrowser
        self.claims = []
        self.claims = Self.ordered(claims)
    }

    /// Longest prefix first; for equal prefixes, the order they were found in
    /// (the XDG search order, then the desktop id), which decides a conflict.
    static func ordered(_ claims: [HTTPSClaim]) -> [HTTPSClaim] {
        claims.enumerated().sorted { a, b in
            a.element.path.utf8.count != b.element.path.utf8.count
                ? a.element.path.utf8.count > b.element.path.utf8.count : a.offset < b.offset
        }.map(\.element)
    }

    public static let empty = AppDirectory()

    /// The app for a link, and the rule that picked it, for `Route` and `explain`.
    public func app(for uri: URIReference) -> (app: LinkApp, rule: String)? {
        let scheme = uri.normalizedScheme
        if SchemeRule.isWeb(scheme) {
            guard scheme == "https", let host = uri.host.map(ASCII.lowercased), !leftToBrowser.contains(host) else {
                return nil
            }
            guard let claim = claims.first(where: { $0.covers(uri) }) else { return nil }
            return (claim.app, "the longest claim that covers it, \(claim.prefix), is \(claim.app.id)'s")
        }
        guard let app = schemes[scheme] else { return nil }
        return (app, "\(app.id) is the app for \(scheme): links")
    }

    /// Claims two or more apps make on the same prefix: the first one found wins (doctor shows these).
    public var conflicts: [(prefix: String, apps: [String])] {
        var byPrefix: [String: [String]] = [:]
        var order: [String] = []
        for c in claims {
            let key = c.host + ":" + c.port + c.path
            if byPrefix[key] == nil { order.append(key) }
            byPrefix[key, default: []].append(c.app.id)
        }
        return order.compactMap { k in
            let apps = byPrefix[k]!
            return Set(apps).count > 1 ? (claims.first { $0.host + ":" + $0.port + $0.path == k }!.prefix, apps) : nil
        }
    }
}
