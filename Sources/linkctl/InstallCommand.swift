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
            $XDG_DATA_HOME/applications, pointing at the linkrouterd beside this linkctl. When
            linkctl is not on PATH (run from a clone's .build/release), links to it go to
            ~/.local/bin. With --claim-https the current default browser is recorded first; web
            links go to it (or to the app whose desktop entry claims their path,
            X-LinkRouter-Claims=) and `linkctl uninstall` makes it the default again.
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
            try write(inst.socketUnitPath, Installation.socketUnitFile, into: &record)
            report.append(
                (
                    "agent socket",
                    inst.socketUnitPath + " (systemctl --user enable --now " + Installation.socketUnitName + ")"
                ))

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
            // The way back from a loopback login's page (issue 45): linkrouter's own scheme, handled as any other.
            let back = try registration.registerScheme(ReturnLink.scheme, recordingIn: &record)
            report.append(("way back", "\(ReturnLink.scheme) → \(back.desktopFile)"))
            if let onPath = try pathLinks(inst, into: &record) { report.append(("path", onPath)) }
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

    /// The commands on `PATH` when they are not there already (a clone's `.build/release`): links in
    /// `~/.local/bin`, the directory Debian's `~/.profile` puts on `PATH` at login when it exists, recorded so
    /// `uninstall` removes them. A file there that is not such a link is left alone, and said. Nil: nothing to do
    /// (a package's `/usr/bin/linkctl`, or these very links, already answer).
    static func pathLinks(_ inst: Installation, into record: inout InstallRecord) throws(SystemError) -> String? {
        let found = FileSystem.findExecutable("linkctl").map { FileSystem.readLink($0) ?? $0 }
        guard found != inst.linkctl else { return nil }
        let bin = inst.directories.home + "/.local/bin"
        try FileSystem.makeDirectories(bin, permissions: 0o755)
        var made: [String] = []
        for name in ["linkctl", "docker-credential-linkrouter", LinkCtl.gitHelperName] {
            let path = bin + "/" + name
            if let target = FileSystem.readLink(path) {
                guard target == inst.linkctl else { return "\(path) exists and points at \(target): left alone" }
                continue
            }
            guard !FileSystem.exists(path) else { return "\(path) exists and is not a link: left alone" }
            try FileSystem.symlink(inst.linkctl, at: path)
            record.noteFile(path)
            made.append(path)
        }
        let onPath = (Environment.get("PATH") ?? "").split(separator: ":").contains { String($0) == bin }
        let links =
            made.isEmpty ? "\(bin)/linkctl already links here" : made.joined(separator: ", ") + " → " + inst.linkctl
        return links
            + (onPath
                ? ""
                : "; \(bin) is not on PATH yet: log in again (Debian's ~/.profile adds it) or export PATH=\"\(bin):$PATH\"")
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
