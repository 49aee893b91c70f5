import DBusKit
import DesktopIntegration
import Freedesktop
import LinkRouterFiles
import SystemKit

/// `linkctl uninstall`: puts back exactly the defaults linkrouter replaced
/// and removes every file it installed.
enum UninstallCommand {
    static let spec = CommandSpec(
        name: "uninstall", summary: "Undo install and register: restore the previous defaults, remove every file.",
        operands: "", operandCount: 0...0, options: [.flag("json", "print JSON")], details: "", run: run)

    static func run(_ args: ParsedArguments) -> Int32 {
        let inst = LinkCtl.installation()
        guard let record = InstallRecord.read(inst.recordPath) else {
            Output.error("nothing to uninstall: no install record at \(inst.recordPath)")
            return ExitCode.ok
        }
        let database = DesktopDatabase(directories: inst.directories)
        let ownIDs = record.files.map(FileSystem.baseName).filter { $0.hasPrefix(OwnEntries.idPrefix) }
        var restored: [String] = []
        var removed: [String] = []
        do {
            for mime in record.previousDefaults.keys.sorted() {
                // The app a scheme's deep links went to is its default again, if there was none before.
                var previous = record.previousDefaults[mime]!
                if previous.isEmpty, mime.hasPrefix("x-scheme-handler/"),
                    let app = record.apps[String(mime.dropFirst(17))], database.entry(app) != nil
                {
                    previous = app + ";"
                }
                try MimeAppsFile.restore(mime, to: previous, in: database.userMimeAppsList, removing: ownIDs)
                restored.append(mime)
            }
            // The other handlers `register` took out of each scheme's list come back, exactly those.
            for mime in Set(record.removedAssociations.keys).union(record.unaddedAssociations.keys).sorted() {
                let list = database.userMimeAppsList
                try FileSystem.writeAtomically(
                    list,
                    text: MimeApps.restoringAssociations(
                        removed: record.removedAssociations[mime] ?? [],
                        unadded: record.unaddedAssociations[mime] ?? [], for: mime,
                        in: try? FileSystem.readText(list)), permissions: 0o644)
                if !restored.contains(mime) { restored.append(mime) }
            }
            // The portal's remembered picks `register` forgot, as they were.
            if !record.portalPicks.isEmpty, let portal = PortalChoices.onSessionBus() {
                for (mime, picks) in record.portalPicks.sorted(by: { $0.key < $1.key }) {
                    for pick in picks.compactMap(PortalChoices.Pick.init(recorded:)) {
                        do throws(DBusError) { try portal.restore(pick, for: mime) } catch {
                            StandardStreams.err(
                                "linkctl: note: could not give the OpenURI portal back its pick \(pick.handler) for \(mime): \(error.message)\n"
                            )
                        }
                    }
                }
            }
            for path in record.files where FileSystem.status(path) != nil {
                try FileSystem.remove(path)
                removed.append(path)
            }
        } catch {
            Output.error(
                "uninstall stopped: \(error); the install record is kept, fix the cause and run uninstall again")
            return ExitCode.cantCreate
        }
        _ = HandlerRegistration(database: database, linkctl: inst.linkctl).updateDatabase()
        try? FileSystem.remove(inst.recordPath)
        try? FileSystem.removeDirectory(inst.stateDirectory)
        Systemd.daemonReload()
        if args.json {
            Output.json(
                .object([
                    ("restored", .array(restored.map { .string($0) })),
                    ("removed", .array(removed.map { .string($0) })),
                ]))
        } else {
            Output.fields([
                ("restored", restored.isEmpty ? "-" : restored.joined(separator: " ")),
                ("removed", "\(removed.count) files"),
            ])
        }
        return ExitCode.ok
    }
}
