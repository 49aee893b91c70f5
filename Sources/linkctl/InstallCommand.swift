import DesktopIntegration
import LinkRouterCore
import LinkRouterFiles
import SystemKit

/// `linkctl install`: D-Bus activation file, systemd user unit, optional
/// scheme handlers and the https claim, all recorded so `uninstall` can undo it.
enum InstallCommand {
    static let spec = CommandSpec(
        name: "install",
        summary: "Install linkrouter for this user: D-Bus activation, the systemd user unit, handlers.",
        operands: "", operandCount: 0...0,
        options: [
            .flag("claim-https", "also handle http and https links (passes every non-callback link to your browser)"),
            .value("scheme", "SCHEME", "also register this reverse-domain scheme", repeatable: true),
            .value(
                "leave-to-browser", "HOST", "links to this host always go to the browser, whatever an app claims",
                repeatable: true),
            .flag("json", "print JSON"),
        ],
        details: """
            Files go to $XDG_DATA_HOME/dbus-1/services, $XDG_CONFIG_HOME/systemd/user and
            $XDG_DATA_HOME/applications, pointing at the linkrouterd beside this linkctl. With
            --claim-https the current default browser is recorded first; web links go to it (or to
            the app whose desktop entry claims their path, X-LinkRouter-Claims=) and `linkctl
            uninstall` makes it the default again.
            """,
        run: run)

    static func run(_ args: ParsedArguments) -> Int32 {
        let inst = LinkCtl.installation()
        guard FileSystem.isExecutable(inst.linkrouterd) else {
            Output.error(
                "linkrouterd is not beside linkctl (looked for \(inst.linkrouterd)); install both into one directory")
            return ExitCode.refused
        }
        for scheme in args.all("scheme") where !CallbackURI.isCustomScheme(scheme.lowercased()) {
            return LinkCtl.usageFailure(spec, "\(scheme) is not a reverse-domain scheme such as com.example.app")
        }
        for host in args.all("leave-to-browser") where !OAuthText.isHostName(host.lowercased()) {
            return LinkCtl.usageFailure(spec, "\(host) is not a host name such as example.com")
        }
        var record = InstallRecord.read(inst.recordPath) ?? InstallRecord()
        for host in args.all("leave-to-browser").map({ $0.lowercased() }) where !record.leftToBrowser.contains(host) {
            record.leftToBrowser.append(host)
        }
        let database = DesktopDatabase(directories: inst.directories)
        let registration = HandlerRegistration(database: database, linkctl: inst.linkctl, portal: .onSessionBus())
        var report: [(String, String)] = []
        do {
            try write(inst.serviceFilePath, Installation.serviceFile(bindir: inst.binDirectory), into: &record)
            report.append(("activation", inst.serviceFilePath))
            try write(inst.unitPath, Installation.unitFile(bindir: inst.binDirectory), into: &record)
            report.append(("unit", inst.unitPath))

            if args.has("claim-https") {
                if record.browser == nil {
                    guard let browser = database.defaultBrowser() else {
                        Output.error(
                            "no default web browser to pass web links to; set one first (xdg-settings set default-web-browser firefox.desktop), then run install again"
                        )
                        return ExitCode.refused
                    }
                    record.browser = browser.id
                }
                for mime in ["x-scheme-handler/http", "x-scheme-handler/https"]
                where record.previousDefaults[mime] == nil {
                    record.previousDefaults[mime] =
                        MimeAppsFile.defaultValue(for: mime, in: database.userMimeAppsList) ?? ""
                }
                let r = try registration.register(registration.httpsEntry())
                record.noteFile(r.desktopFile)
                report.append(("https", "\(r.desktopFile) (web links go to \(record.browser ?? "?"))"))
                if let note = r.databaseMessage { StandardStreams.err("linkctl: note: \(note)\n") }
            }
            for scheme in args.all("scheme").map({ $0.lowercased() }) {
                let r = try registration.registerScheme(scheme, recordingIn: &record)
                for note in [r.databaseMessage, r.portalMessage].compactMap({ $0 }) {
                    StandardStreams.err("linkctl: note: \(note)\n")
                }
                report.append(("scheme", "\(scheme) → \(r.desktopFile)"))
            }
            try record.write(inst.recordPath)
        } catch {
            Output.error("install failed: \(error)")
            return ExitCode.cantCreate
        }
        let reload = Systemd.daemonReload()
        if args.json {
            Output.json(
                .object(
                    report.map { ($0.0, JSON.string($0.1)) } + [
                        ("record", .string(inst.recordPath)), ("systemd_reloaded", .bool(reload)),
                    ]))
        } else {
            Output.fields(
                report + [
                    ("record", inst.recordPath),
                    (
                        "systemd",
                        reload ? "user manager reloaded" : "no user manager answered; D-Bus activation will use Exec="
                    ),
                ])
        }
        return ExitCode.ok
    }

    static func write(_ path: String, _ text: String, into record: inout InstallRecord) throws(SystemError) {
        try FileSystem.makeDirectories(FileSystem.directoryName(path), permissions: 0o755)
        try FileSystem.writeAtomically(path, text: text, permissions: 0o644)
        record.noteFile(path)
    }
}

/// Best-effort calls to the systemd user manager.
enum Systemd {
    @discardableResult
    static func daemonReload() -> Bool {
        guard let systemctl = FileSystem.findExecutable("systemctl") else { return false }
        return (try? Subprocess.run([systemctl, "--user", "daemon-reload"], timeoutMilliseconds: 10_000).status) == 0
    }
}
