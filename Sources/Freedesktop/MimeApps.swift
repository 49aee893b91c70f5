/// Which application opens a MIME type (or `x-scheme-handler/…`), by the
/// freedesktop "Association between MIME types and applications" spec 1.0.1.
///
/// Pure: the file system is reached only through `read`, so the same rules
/// serve the daemon, `linkctl` and the tests.
public struct MimeApps {
    public typealias Reader = (String) -> String?

    public let configSearchPath: [String]
    public let dataSearchPath: [String]
    /// `$XDG_CURRENT_DESKTOP`, split on `:` and lowercased.
    public let desktops: [String]
    let read: Reader

    public init(configSearchPath: [String], dataSearchPath: [String], currentDesktop: String?, read: @escaping Reader) {
        self.configSearchPath = configSearchPath
        self.dataSearchPath = dataSearchPath
        self.desktops = (currentDesktop ?? "").split(separator: ":").map { String($0).lowercased() }.filter {
            !$0.isEmpty
        }
        self.read = read
    }

    /// The mimeapps.list files in precedence order: per-desktop before plain,
    /// config dirs before data dirs' `applications/`.
    public var listFiles: [String] {
        var out: [String] = []
        for dir in configSearchPath {
            for d in desktops { out.append(dir + "/" + d + "-mimeapps.list") }
            out.append(dir + "/mimeapps.list")
        }
        for dir in dataSearchPath {
            for d in desktops { out.append(dir + "/applications/" + d + "-mimeapps.list") }
            out.append(dir + "/applications/mimeapps.list")
        }
        return out
    }

    /// Finds the desktop file for an id: `a-b.desktop` may also live at `a/b.desktop`.
    public func entry(for id: String) -> DesktopEntry? {
        guard id.hasSuffix(".desktop"), !id.contains("/"), !id.hasPrefix(".") else { return nil }
        for dir in dataSearchPath {
            for relative in Self.candidatePaths(for: id) {
                let path = dir + "/applications/" + relative
                if let text = read(path) { return DesktopEntry(id: id, path: path, text: text) }
            }
        }
        return nil
    }

    static func candidatePaths(for id: String) -> [String] {
        var out = [id]
        var prefix = ""
        var rest = Substring(id)
        while let dash = rest.firstIndex(of: "-") {
            prefix += String(rest[..<dash]) + "/"
            rest = rest[rest.index(after: dash)...]
            out.append(prefix + rest)
        }
        return out
    }

    /// The default application for `mimeType`, skipping entries `exclude` rejects
    /// (linkrouter's own, so it never hands a link to itself).
    public func defaultApplication(for mimeType: String, excluding exclude: (DesktopEntry) -> Bool = { _ in false })
        -> DesktopEntry?
    {
        candidates(for: mimeType, excluding: exclude).first
    }

    /// The default a `[Default Applications]` line names (installed and
    /// launchable), not a mere candidate: what a user or a program chose.
    public func explicitDefault(for mimeType: String) -> DesktopEntry? {
        for path in listFiles {
            guard let text = read(path) else { continue }
            for id in KeyFile(parsing: text).value(mimeType, in: "Default Applications").map(KeyFile.list) ?? [] {
                if let e = entry(for: id), e.isLaunchable { return e }
            }
        }
        return nil
    }

    /// Every application for `mimeType` in preference order: the defaults,
    /// then added associations, then those whose `MimeType=` lists it (minus
    /// removed associations), each only if installed and launchable.
    public func candidates(for mimeType: String, excluding exclude: (DesktopEntry) -> Bool = { _ in false })
        -> [DesktopEntry]
    {
        var out: [DesktopEntry] = []
        var seen: Set<String> = []
        var removed: Set<String> = []
        func consider(_ id: String) {
            guard !seen.contains(id), !removed.contains(id) else { return }
            seen.insert(id)
            guard let e = entry(for: id), e.isLaunchable, !exclude(e) else { return }
            out.append(e)
        }
        let files = listFiles.compactMap { path in read(path).map { KeyFile(parsing: $0) } }
        for file in files {
            for id in file.value(mimeType, in: "Default Applications").map(KeyFile.list) ?? [] { consider(id) }
        }
        for file in files {
            for id in file.value(mimeType, in: "Added Associations").map(KeyFile.list) ?? [] { consider(id) }
            for id in file.value(mimeType, in: "Removed Associations").map(KeyFile.list) ?? [] { removed.insert(id) }
        }
        for dir in dataSearchPath {
            guard let cache = read(dir + "/applications/mimeinfo.cache").map({ KeyFile(parsing: $0) }) else { continue }
            for id in cache.value(mimeType, in: "MIME Cache").map(KeyFile.list) ?? [] { consider(id) }
        }
        return out
    }

    /// `mimeapps.list` text with `id` made the default for each MIME type and
    /// put first in its added associations, everything else kept.
    public static func settingDefault(_ id: String, for mimeTypes: [String], in text: String?) -> String {
        var file = KeyFile(parsing: text ?? "")
        for type in mimeTypes {
            file.set(type, to: id + ";", in: "Default Applications")
            let added = file.value(type, in: "Added Associations").map(KeyFile.list) ?? []
            file.set(
                type, to: ([id] + added.filter { $0 != id }).joined(separator: ";") + ";", in: "Added Associations")
        }
        return file.text
    }
}
