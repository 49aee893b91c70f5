/// A `.desktop` file of `Type=Application`, as far as launching it goes
/// (Desktop Entry Specification 1.5).
public struct DesktopEntry: Sendable, Equatable {
    /// The desktop file id (`firefox.desktop`, or `kde-konqueror.desktop` for `kde/konqueror.desktop`).
    public let id: String
    /// Where it was read from (the `%k` field code).
    public let path: String
    public let name: String?
    public let exec: String?
    public let tryExec: String?
    public let icon: String?
    public let mimeTypes: [String]
    public let hidden: Bool
    public let noDisplay: Bool
    public let dbusActivatable: Bool
    /// `StartupNotify=true`: a launcher makes a startup id (an activation token) for each launch (GIO only then).
    public let startupNotify: Bool
    public let type: String?
    /// `X-LinkRouter-Claims`: the https prefixes the app claims (linkrouter's key).
    public let claims: [String]

    public static let group = "Desktop Entry"

    public init(id: String, path: String, text: String) {
        let file = KeyFile(parsing: text)
        func string(_ key: String) -> String? { file.value(key, in: Self.group).map(KeyFile.unescape) }
        func bool(_ key: String) -> Bool { file.value(key, in: Self.group) == "true" }
        self.id = id
        self.path = path
        name = string("Name")
        exec = string("Exec")
        tryExec = string("TryExec")
        icon = string("Icon")
        mimeTypes = file.value("MimeType", in: Self.group).map(KeyFile.list) ?? []
        hidden = bool("Hidden")
        noDisplay = bool("NoDisplay")
        dbusActivatable = bool("DBusActivatable")
        startupNotify = bool("StartupNotify")
        type = string("Type")
        claims = file.value("X-LinkRouter-Claims", in: Self.group).map(KeyFile.list) ?? []
    }

    /// True for an application entry that may be launched at all.
    public var isLaunchable: Bool { type == "Application" && !hidden && exec != nil }

    /// The argv that opens `url`, by the spec's Exec rules; no shell is involved.
    public func commandLine(opening url: String) throws(ExecLineError) -> [String] {
        guard let exec else { throw ExecLineError("\(id) has no Exec key") }
        return try ExecLine.expand(exec, url: url, name: name, icon: icon, desktopFilePath: path)
    }

    /// The field codes of `Exec` (`%u`, `%F`…), for checking an app can take a URL.
    public var fieldCodes: [String] {
        guard let exec, let words = try? ExecLine.split(exec) else { return [] }
        var out: [String] = []
        for w in words where !w.quoted {
            var it = w.text.makeIterator()
            while let c = it.next() {
                guard c == "%", let code = it.next() else { continue }
                if code != "%" { out.append("%" + String(code)) }
            }
        }
        return out
    }

    /// The program `Exec` runs (its first word), for recognising our own entries.
    public var program: String? {
        guard let exec, let words = try? ExecLine.split(exec), let first = words.first else { return nil }
        return first.text
    }
}
