import DesktopIntegration
import Freedesktop
import LinkRouterCore
import LinkRouterFiles
import SystemKit

/// `linkctl register SCHEME [--app DESKTOP-ID]`: makes linkrouter the handler
/// of an app's reverse-domain scheme (a user desktop file, the desktop
/// database, the mimeapps default) and records which app the scheme's deep
/// links go to: the one named, else the default before linkrouter, else the
/// one desktop entry that declares the scheme. `uninstall` undoes it all.
enum RegisterCommand {
    static let spec = CommandSpec(
        name: "register", summary: "Make linkrouter the handler of a reverse-domain scheme such as com.example.app.",
        operands: "SCHEME", operandCount: 1...1,
        options: [
            .value("app", "DESKTOP-ID", "the app that gets the scheme's deep links, e.g. com.example.App.desktop"),
            .flag("json", "print JSON"),
        ],
        details: """
            Writes $XDG_DATA_HOME/applications/linkrouter-SCHEME.desktop with
            Exec=<this linkctl> open -- %u, runs update-desktop-database, and sets it as the
            default for x-scheme-handler/SCHEME in $XDG_CONFIG_HOME/mimeapps.list. Login
            callbacks go to the app that began the login; every other link of the scheme goes
            to the app: --app, else the scheme's default before linkrouter, else the one
            desktop entry that declares it (MimeType=x-scheme-handler/SCHEME;). Every other entry
            that declares the scheme gets a [Removed Associations] line there, so linkrouter is its
            only handler and no "Open With…" chooser (the OpenURI portal's) can offer a login's code
            to an app; uninstall puts back exactly what was there.
            """,
        run: run)

    static func run(_ args: ParsedArguments) -> Int32 {
        let scheme = args.operands[0].lowercased()
        guard CallbackURI.isCustomScheme(scheme) else {
            return LinkCtl.usageFailure(
                spec,
                "\(scheme) is not a reverse-domain scheme; register a scheme such as com.example.app (https is claimed with linkctl install --claim-https)"
            )
        }
        let installation = LinkCtl.installation()
        let database = DesktopDatabase(directories: installation.directories)
        let registration = HandlerRegistration(
            database: database, linkctl: installation.linkctl, portal: .onSessionBus())
        let id = OwnEntries.id(forScheme: scheme)
        let mime = "x-scheme-handler/" + scheme
        var record = InstallRecord.read(installation.recordPath) ?? InstallRecord()
        let app: String?
        switch chooseApp(scheme, named: args.value("app"), recorded: record.apps[scheme], database: database) {
        case .success(let a): app = a
        case .failure(let e):
            if e.usage { return LinkCtl.usageFailure(spec, e.message) }
            Output.error(e.message)
            return ExitCode.refused
        }
        do {
            record.apps[scheme] = app
            let result = try registration.registerScheme(scheme, recordingIn: &record)
            try record.write(installation.recordPath)
            for note in [result.databaseMessage, result.portalMessage].compactMap({ $0 }) {
                StandardStreams.err("linkctl: note: \(note)\n")
            }
            let appText =
                app
                ?? "none: its deep links are refused until one is named (linkctl register \(scheme) --app APP.desktop)"
            if args.json {
                Output.json(
                    .object([
                        ("scheme", .string(scheme)), ("desktop_file", .string(result.desktopFile)),
                        ("desktop_id", .string(id)),
                        ("exec", .string(registration.execLine)), ("database_updated", .bool(result.updatedDatabase)),
                        ("app", app.map { .string($0) } ?? .null),
                    ]))
            } else {
                Output.fields([
                    ("scheme", scheme), ("desktop_file", result.desktopFile), ("exec", registration.execLine),
                    ("default", "\(id) for \(mime)"), ("app", appText),
                ])
            }
            return ExitCode.ok
        } catch {
            Output.error("cannot register \(scheme): \(error)")
            return ExitCode.cantCreate
        }
    }

    struct Refusal: Error {
        let message: String
        let usage: Bool
    }

    /// The app for the scheme's deep links, by the rule in the help text.
    static func chooseApp(_ scheme: String, named: String?, recorded: String?, database: DesktopDatabase) -> Result<
        String?, Refusal
    > {
        if let named {
            guard named.hasSuffix(".desktop"), !named.contains("/") else {
                return .failure(
                    Refusal(
                        message: "--app takes a desktop file id such as com.example.App.desktop, not \(named)",
                        usage: true))
            }
            guard let entry = database.entry(named) else {
                return .failure(
                    Refusal(
                        message:
                            "no desktop entry \(named) in \(database.directories.dataSearchPath.map { $0 + "/applications" }.joined(separator: ":"))",
                        usage: false))
            }
            if let why = AppCheck.problem(entry, named: true) {
                return .failure(Refusal(message: "\(named) cannot take links: \(why)", usage: false))
            }
            return .success(named)
        }
        if let recorded { return .success(recorded) }
        if let current = database.mimeApps.explicitDefault(for: "x-scheme-handler/" + scheme),
            AppCheck.problem(current) == nil
        {
            return .success(current.id)
        }
        let declaring = LinkApps(database: database).candidates(forScheme: scheme)
        guard declaring.count <= 1 else {
            return .failure(
                Refusal(
                    message:
                        "several apps declare \(scheme): \(declaring.map(\.id).joined(separator: ", ")); name the one for its deep links with --app",
                    usage: true))
        }
        return .success(declaring.first?.id)
    }
}
