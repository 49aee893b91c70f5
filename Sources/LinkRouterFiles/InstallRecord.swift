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

    public init(browser: String? = nil, previousDefaults: [String: String] = [:], files: [String] = [], apps: [String: String] = [:],
                leftToBrowser: [String] = []) {
        self.browser = browser
        self.previousDefaults = previousDefaults
        self.files = files
        self.apps = apps
        self.leftToBrowser = leftToBrowser
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
        return record
    }

    public var text: String {
        var file = KeyFile(parsing: "# Written by linkctl install; read by linkrouterd and linkctl uninstall.\n")
        file.set("Browser", to: browser ?? "", in: "Install")
        file.set("Files", to: files.map { $0 + ";" }.joined(), in: "Install")
        if !leftToBrowser.isEmpty { file.set("LeaveToBrowser", to: leftToBrowser.map { $0 + ";" }.joined(), in: "Install") }
        for key in previousDefaults.keys.sorted() { file.set(key, to: previousDefaults[key]!, in: "Previous Defaults") }
        for key in apps.keys.sorted() { file.set(key, to: apps[key]!, in: "Apps") }
        return file.text
    }

    public func write(_ path: String) throws(SystemError) {
        try FileSystem.makeDirectories(FileSystem.directoryName(path), permissions: 0o700)
        try FileSystem.writeAtomically(path, text: text, permissions: 0o600)
    }
}
