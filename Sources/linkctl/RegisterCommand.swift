import DesktopIntegration
import LinkRouterFiles
import LinkRouterCore
import SystemKit

/// `linkctl register SCHEME`: makes linkrouter the handler of an app's
/// reverse-domain scheme (a user desktop file, the desktop database, the
/// mimeapps default), and records it for `uninstall`.
enum RegisterCommand {
    static let spec = CommandSpec(
        name: "register", summary: "Make linkrouter the handler of a reverse-domain scheme such as com.example.app.",
        operands: "SCHEME", operandCount: 1...1, options: [.flag("json", "print JSON")],
        details: """
            Writes $XDG_DATA_HOME/applications/linkrouter-SCHEME.desktop with
            Exec=<this linkctl> open -- %u, runs update-desktop-database, and sets it as the
            default for x-scheme-handler/SCHEME in $XDG_CONFIG_HOME/mimeapps.list.
            """,
        run: run)

    static func run(_ args: ParsedArguments) -> Int32 {
        let scheme = args.operands[0].lowercased()
        guard CallbackURI.isCustomScheme(scheme) else {
            return LinkCtl.usageFailure(spec, "\(scheme) is not a reverse-domain scheme; register a scheme such as com.example.app (https is claimed with linkctl install --claim-https)")
        }
        let installation = LinkCtl.installation()
        let registration = HandlerRegistration(database: DesktopDatabase(directories: installation.directories), linkctl: installation.linkctl)
        let id = OwnEntries.id(forScheme: scheme)
        let mime = "x-scheme-handler/" + scheme
        do {
            var record = InstallRecord.read(installation.recordPath) ?? InstallRecord()
            if record.previousDefaults[mime] == nil {
                let current = MimeAppsFile.defaultValue(for: mime, in: registration.database.userMimeAppsList)
                if current != id + ";" { record.previousDefaults[mime] = current ?? "" }
            }
            let result = try registration.register(registration.schemeEntry(scheme))
            if !record.files.contains(result.desktopFile) { record.files.append(result.desktopFile) }
            try record.write(installation.recordPath)
            if let note = result.databaseMessage { StandardStreams.err("linkctl: note: \(note)\n") }
            if args.json {
                Output.json(.object([("scheme", .string(scheme)), ("desktop_file", .string(result.desktopFile)), ("desktop_id", .string(id)),
                                     ("exec", .string(registration.execLine)), ("database_updated", .bool(result.updatedDatabase))]))
            } else {
                Output.fields([("scheme", scheme), ("desktop_file", result.desktopFile), ("exec", registration.execLine),
                               ("default", "\(id) for \(mime)")])
            }
            return ExitCode.ok
        } catch {
            Output.error("cannot register \(scheme): \(error)")
            return ExitCode.cantCreate
        }
    }
}
