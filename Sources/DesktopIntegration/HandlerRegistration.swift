import DBusKit
import Freedesktop
public import LinkRouterFiles
public import SystemKit

/// Writes linkrouter's scheme handlers: a `.desktop` file whose Exec is
/// `<linkctl> open -- %u`, then the desktop database and the mimeapps default.
public struct HandlerRegistration {
    public let database: DesktopDatabase
    /// The absolute path of the `linkctl` that handlers run.
    public let linkctl: String
    /// The OpenURI portal's remembered picks, when a session bus is there to ask.
    public let portal: PortalChoices?

    public init(database: DesktopDatabase, linkctl: String, portal: PortalChoices? = nil) {
        self.database = database
        self.linkctl = linkctl
        self.portal = portal
    }

    /// The handler line: absolute linkctl, `--` so no URL is ever read as an
    /// option, and an unquoted `%u` (the spec forbids field codes in quotes).
    public var execLine: String { ExecLine.quote(linkctl) + " open -- %u" }

    public func desktopFile(name: String, comment: String, mimeTypes: [String]) -> String {
        """
        [Desktop Entry]
        Type=Application
        Version=1.4
        Name=\(ExecLine.escapeForKeyFile(name))
        Comment=\(ExecLine.escapeForKeyFile(comment))
        Exec=\(ExecLine.escapeForKeyFile(execLine))
        Icon=web-browser
        Terminal=false
        NoDisplay=true
        StartupNotify=true
        MimeType=\(mimeTypes.map { $0 + ";" }.joined())

        """
    }

    /// The handler of one reverse-domain scheme.
    public func schemeEntry(_ scheme: String) -> (id: String, text: String, mimeTypes: [String]) {
        let mime = ["x-scheme-handler/" + scheme]
        return (
            OwnEntries.id(forScheme: scheme),
            desktopFile(
                name: "linkrouter (\(scheme))",
                comment: "Routes \(scheme): login callbacks to the app waiting for them", mimeTypes: mime), mime
        )
    }

    /// The http and https handler of `install --claim-https`.
    public func httpsEntry() -> (id: String, text: String, mimeTypes: [String]) {
        let mime = ["x-scheme-handler/http", "x-scheme-handler/https"]
        return (
            OwnEntries.httpsID,
            desktopFile(
                name: "linkrouter (web links)",
                comment: "Catches https login callbacks; every other web link goes on to your browser", mimeTypes: mime),
            mime
        )
    }

    /// Registers the handler of `scheme` (`install --scheme`, `register`), first
    /// noting in `record` the default it takes over, so `uninstall` can put it
    /// back: once (a second registration keeps the first), and not when the
    /// default is already linkrouter's.
    public func registerScheme(_ scheme: String, recordingIn record: inout InstallRecord) throws(SystemError) -> Result
    {
        let entry = schemeEntry(scheme)
        for mime in entry.mimeTypes where record.previousDefaults[mime] == nil {
            let current = MimeAppsFile.defaultValue(for: mime, in: database.userMimeAppsList)
            if current != entry.id + ";" { record.previousDefaults[mime] = current ?? "" }
        }
        var result = try register(entry)
        record.noteFile(result.desktopFile)
        for mime in entry.mimeTypes {
            try makeSoleHandler(entry.id, of: mime, recordingIn: &record)
            do throws(DBusError) { try forgetOtherPicks(of: mime, keeping: entry.id, recordingIn: &record) } catch {
                result.portalMessage =
                    "could not read or change the OpenURI portal's remembered picks for \(mime) (\(error.message)); linkctl doctor checks them"
            }
        }
        return result
    }

    /// Forgets every "Open With…" pick the portal remembers for `mime` that is
    /// not linkrouter's entry (it would win over the default), noting each in
    /// `record` for `uninstall`.
    public func forgetOtherPicks(of mime: String, keeping id: String, recordingIn record: inout InstallRecord)
        throws(DBusError)
    {
        guard let portal else { return }
        for pick in try portal.picks(for: mime) where !pick.picked(id) {
            try portal.forget(pick, for: mime)
            let known = record.portalPicks[mime] ?? []
            if !known.contains(pick.recorded) { record.portalPicks[mime] = known + [pick.recorded] }
        }
    }

    /// Takes every other entry that declares `mime` out of the desktop's list
    /// of its handlers (a `[Removed Associations]` line in the user's
    /// mimeapps.list), noting in `record` exactly what changed for `uninstall`.
    /// With two handlers the OpenURI portal opens "Open With…" for every
    /// link, and a person who picks the app hands it a login's code (then the
    /// portal remembers that pick); with one it launches linkrouter at once.
    /// Deep links still reach the app: linkrouter hands them over itself.
    public func makeSoleHandler(_ id: String, of mime: String, recordingIn record: inout InstallRecord)
        throws(SystemError)
    {
        let others = database.mimeApps.candidates(for: mime, excluding: OwnEntries.isOwn).map(\.id)
        guard !others.isEmpty else { return }
        let list = database.userMimeAppsList
        let edit = MimeApps.removingAssociations(others, for: mime, in: try? FileSystem.readText(list))
        try FileSystem.writeAtomically(list, text: edit.text, permissions: 0o644)
        func note(_ ids: [String], in lists: inout [String: [String]]) {
            let known = lists[mime] ?? []
            lists[mime] = known + ids.filter { !known.contains($0) }
        }
        note(edit.removed, in: &record.removedAssociations)
        note(edit.unadded, in: &record.unaddedAssociations)
    }

    /// What `register` did, for the caller to report.
    public struct Result: Sendable {
        public let desktopFile: String
        public let updatedDatabase: Bool
        public let databaseMessage: String?
        /// Set when the portal's remembered picks could not be checked.
        public var portalMessage: String?
    }

    /// Writes the entry, updates the desktop database and makes it the default for its MIME types.
    public func register(_ entry: (id: String, text: String, mimeTypes: [String])) throws(SystemError) -> Result {
        let (id, text, mimeTypes) = entry
        let dir = database.userApplicationsDirectory
        try FileSystem.makeDirectories(dir, permissions: 0o755)
        let path = dir + "/" + id
        try FileSystem.writeAtomically(path, text: text, permissions: 0o644)
        let (updated, message) = updateDatabase()
        try setDefault(id, for: mimeTypes)
        return Result(desktopFile: path, updatedDatabase: updated, databaseMessage: message, portalMessage: nil)
    }

    /// Makes `id` the default for `mimeTypes` in the user's mimeapps.list.
    public func setDefault(_ id: String, for mimeTypes: [String]) throws(SystemError) {
        let list = database.userMimeAppsList
        try FileSystem.makeDirectories(FileSystem.directoryName(list), permissions: 0o755)
        let current = try? FileSystem.readText(list)
        try FileSystem.writeAtomically(
            list, text: MimeApps.settingDefault(id, for: mimeTypes, in: current), permissions: 0o644)
    }

    /// Runs `update-desktop-database` on the user's applications directory
    /// (so `mimeinfo.cache` lists the new entry); missing tool is reported, not fatal.
    public func updateDatabase() -> (Bool, String?) {
        guard let tool = FileSystem.findExecutable("update-desktop-database") else {
            return (
                false,
                "update-desktop-database is not installed (Debian: desktop-file-utils); mimeapps.list still names the handler"
            )
        }
        do {
            let outcome = try Subprocess.run([tool, database.userApplicationsDirectory], timeoutMilliseconds: 20_000)
            return outcome.status == 0 ? (true, nil) : (false, "update-desktop-database failed: " + outcome.errorText)
        } catch {
            return (false, "update-desktop-database could not run: \(error)")
        }
    }
}
