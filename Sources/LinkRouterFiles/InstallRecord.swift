import Freedesktop
public import SystemKit

/// What `linkctl install` did, so `uninstall` can undo exactly that and the
/// daemon knows the real browser once linkrouter is the https handler.
/// A key file at `LinkRouterPaths.installRecord`.
public struct InstallRecord: Sendable, Equatable {
    /// The browser web links go to: the default before linkrouter claimed https.
    public var browser: String?
    /// Each MIME type linkrouter took over, with the `Default Applications` value it had ("" for none).
    public var previousDefaults: [String: String]
    /// Every file linkrouter installed.
    public var files: [String]
    /// Scheme → the desktop id of the app its deep links go to (`register SCHEME [--app ID]`).
    public var apps: [String: String]
    /// Hosts whose links always go to the browser, whatever an app claims.
    public var leftToBrowser: [String]
    /// The user's own https claims (`linkctl claim add PREFIX --app ID`): app desktop id → prefixes,
    /// for apps that ship none; ranked with the apps' `X-LinkRouter-Claims` by the same rule.
    public var claims: [String: [String]]
    /// MIME type → the ids `register` put under `[Removed Associations]` in the user's
    /// mimeapps.list (so linkrouter is a scheme's only handler), and those it took out of
    /// `[Added Associations]`: `uninstall` undoes exactly these.
    public var removedAssociations: [String: [String]]
    public var unaddedAssociations: [String: [String]]
    /// MIME type → the OpenURI portal's remembered picks `register` forgot (`PortalChoices.Pick.recorded`).
    public var portalPicks: [String: [String]]

    public init(
        browser: String? = nil, previousDefaults: [String: String] = [:], files: [String] = [],
        apps: [String: String] = [:],
        leftToBrowser: [String] = [], claims: [String: [String]] = [:],
        removedAssociations: [String: [String]] = [:], unaddedAssociations: [String: [String]] = [:],
        portalPicks: [String: [String]] = [:]
    ) {
        self.browser = browser
        self.previousDefaults = previousDefaults
        self.files = files
        self.apps = apps
        self.leftToBrowser = leftToBrowser
        self.claims = claims
        self.removedAssociations = removedAssociations
        self.unaddedAssociations = unaddedAssociations
        self.portalPicks = portalPicks
    }

    /// Notes a file linkrouter installed (once).
    public mutating func noteFile(_ path: String) {
        if !files.contains(path) { files.append(path) }
    }

    public static func read(_ path: String) -> InstallRecord? {
        guard let text = try? FileSystem.readText(path, maxBytes: 1 << 20) else { return nil }
        let file = KeyFile(parsing: text)
        var record = InstallRecord()
        record.browser = file.value("Browser", in: "Install").flatMap { $0.isEmpty ? nil : $0 }
        record.files = file.value("Files", in: "Install").map(KeyFile.list) ?? []
        for (key, value) in file.entries(in: "Previous Defaults") { record.previousDefaults[key] = value }
        for (key, value) in file.entries(in: "Apps") where !value.isEmpty { record.apps[key] = value }
        record.leftToBrowser = file.value("LeaveToBrowser", in: "Install").map(KeyFile.list) ?? []
        record.claims = lists(file, "Claims")
        record.removedAssociations = lists(file, "Removed Associations")
        record.unaddedAssociations = lists(file, "Unadded Associations")
        record.portalPicks = lists(file, "Portal Picks")
        return record
    }

    public var text: String {
        var file = KeyFile(parsing: "# Written by linkctl install; read by linkrouterd and linkctl uninstall.\n")
        file.set("Browser", to: browser ?? "", in: "Install")
        file.set("Files", to: files.map { $0 + ";" }.joined(), in: "Install")
        if !leftToBrowser.isEmpty {
            file.set("LeaveToBrowser", to: leftToBrowser.map { $0 + ";" }.joined(), in: "Install")
        }
        for key in previousDefaults.keys.sorted() { file.set(key, to: previousDefaults[key]!, in: "Previous Defaults") }
        for key in apps.keys.sorted() { file.set(key, to: apps[key]!, in: "Apps") }
        for (group, lists) in [
            ("Claims", claims), ("Removed Associations", removedAssociations),
            ("Unadded Associations", unaddedAssociations),
            ("Portal Picks", portalPicks),
        ] {
            for key in lists.keys.sorted() where !lists[key]!.isEmpty {
                file.set(key, to: KeyFile.listValue(lists[key]!), in: group)
            }
        }
        return file.text
    }

    /// A group of `key=a;b;` lists.
    static func lists(_ file: KeyFile, _ group: String) -> [String: [String]] {
        var out: [String: [String]] = [:]
        for (key, value) in file.entries(in: group) {
            let items = KeyFile.list(value)
            if !items.isEmpty { out[key] = items }
        }
        return out
    }

    public func write(_ path: String) throws(SystemError) {
        try FileSystem.makeDirectories(FileSystem.directoryName(path), permissions: 0o700)
        try FileSystem.writeAtomically(path, text: text, permissions: 0o600)
    }
}
