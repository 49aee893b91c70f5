/// The managed browser policies that let a login's custom-scheme callback
/// through without the browser's own dialog (issue 45): the first time a page
/// sends the browser to a scheme, Chromium asks "Open xdg-open?" and Firefox
/// "Allow this site to open the … link?". A fleet answers that once, for
/// exactly that scheme from exactly the provider's origins:
///
/// - Chromium reads `AutoLaunchProtocolsFromOrigins` (a list of `{protocol,
///   allowed_origins}`) from the JSON files of
///   `/etc/chromium/policies/managed/`; a list policy is taken from one file,
///   not merged across files, so linkrouter keeps all its schemes in one file
///   of its own (`chromiumFile`).
/// - Firefox (90 and later) reads the same policy, and `Handlers` (the scheme
///   to go to the system's handler without asking), from the one
///   `policies.json` of its system directory, which may hold the
///   administrator's other policies: linkrouter changes only its schemes'
///   entries there.
///
/// The rules are pure (a document in, a document out); `linkctl browser-policy`
/// reads and writes the files.
public enum BrowserPolicy {
    /// Chromium's managed-policy file of linkrouter's, under the system root.
    public static let chromiumFile = "/etc/chromium/policies/managed/linkrouter.json"
    /// Firefox's system policy file: Debian's firefox-esr (and firefox) read `/etc/firefox/policies/policies.json`,
    /// then the installation's `distribution/policies.json` (seen with strace: its SysConfD is `/etc/firefox`).
    public static let firefoxFiles = ["/etc/firefox/policies/policies.json"]

    static let autoLaunch = "AutoLaunchProtocolsFromOrigins"

    /// `origin`, checked: `https://host[:port]` (or http on a loopback host, a local provider's), nothing after.
    public static func origin(_ text: String) throws(RouterError) -> String {
        guard let uri = try? URIReference.strict(text, maxLength: 2048), uri.authority != nil, !uri.hasUserinfo,
            uri.path.isEmpty || uri.path == "/", uri.query == nil, uri.fragment == nil,
            uri.normalizedScheme == "https"
                || (uri.normalizedScheme == "http"
                    && CallbackURI.loopbackHosts.contains(ASCII.lowercased(uri.host ?? "")))
        else {
            throw .invalid("\(text) is not an origin such as https://id.example.com (https, a host, no path)")
        }
        return uri.normalizedScheme + "://" + ASCII.lowercased(uri.authority ?? "")
    }

    /// Chromium's document with `scheme` allowed from `origins` (nil: the scheme's entry removed), others kept.
    public static func chromium(_ doc: JSONValue?, scheme: String, origins: [String]?) -> JSONValue {
        var members = doc?.objectValue ?? []
        set(&members, autoLaunch, entries(members.first { $0.0 == autoLaunch }?.1, scheme: scheme, origins: origins))
        return .object(members)
    }

    /// Firefox's `policies.json` with `scheme` allowed from `origins` and handed to the system's handler without
    /// asking (nil: both removed), the administrator's other policies kept as they were.
    public static func firefox(_ doc: JSONValue?, scheme: String, origins: [String]?) -> JSONValue {
        var top = doc?.objectValue ?? []
        var policies = top.first { $0.0 == "policies" }?.1.objectValue ?? []
        set(&policies, autoLaunch, entries(policies.first { $0.0 == autoLaunch }?.1, scheme: scheme, origins: origins))
        var handlers = policies.first { $0.0 == "Handlers" }?.1.objectValue ?? []
        var schemes = handlers.first { $0.0 == "schemes" }?.1.objectValue ?? []
        schemes.removeAll { $0.0 == scheme }
        if origins != nil {
            schemes.append((scheme, .object([("action", .string("useSystemDefault")), ("ask", .bool(false))])))
        }
        set(&handlers, "schemes", schemes.isEmpty ? nil : .object(schemes))
        set(&policies, "Handlers", handlers.isEmpty ? nil : .object(handlers))
        set(&top, "policies", .object(policies))
        return .object(top)
    }

    /// The schemes a document allows, each with its origins (what `linkctl browser-policy` lists).
    public static func allowed(_ doc: JSONValue?) -> [(scheme: String, origins: [String])] {
        let list = doc?[autoLaunch]?.arrayValue ?? doc?["policies"]?[autoLaunch]?.arrayValue ?? []
        return list.compactMap { entry in
            guard let scheme = entry["protocol"]?.stringValue else { return nil }
            return (scheme, entry["allowed_origins"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        }
    }

    /// `list` (an `AutoLaunchProtocolsFromOrigins` value) with `scheme`'s entry replaced, or removed; nil when
    /// nothing is left.
    static func entries(_ list: JSONValue?, scheme: String, origins: [String]?) -> JSONValue? {
        var items = (list?.arrayValue ?? []).filter { $0["protocol"]?.stringValue != scheme }
        if let origins {
            items.append(
                .object([("protocol", .string(scheme)), ("allowed_origins", .array(origins.map { .string($0) }))]))
        }
        return items.isEmpty ? nil : .array(items)
    }

    /// `members` with `key` set to `value` where it was (or at the end), or removed when `value` is nil.
    static func set(_ members: inout [(String, JSONValue)], _ key: String, _ value: JSONValue?) {
        if let i = members.firstIndex(where: { $0.0 == key }) {
            if let value { members[i].1 = value } else { members.remove(at: i) }
        } else if let value {
            members.append((key, value))
        }
    }
}
