import DBusKit
import DesktopIntegration
import Freedesktop
import LinkRouterAPI
import LinkRouterCore
import LinkRouterFiles
import SecretKit
import SystemKit

/// `linkctl doctor`: checks every piece a link click passes through and says,
/// for each problem, the command that fixes it.
enum DoctorCommand {
    static let spec = CommandSpec(
        name: "doctor", summary: "Check the bus, the daemon, activation, handlers and the browser; print fixes.",
        operands: "", operandCount: 0...0, options: [.flag("json", "print JSON")],
        details: "Exit status 1 when any check fails.", run: run)

    struct Check {
        let name: String
        let ok: Bool
        let detail: String
        let fix: String?
    }

    static func run(_ args: ParsedArguments) -> Int32 {
        let checks = runChecks()
        if args.json {
            Output.json(
                .array(
                    checks.map { c in
                        .object([
                            ("check", .string(c.name)), ("ok", .bool(c.ok)), ("detail", .string(c.detail)),
                            ("fix", c.fix.map { .string($0) } ?? .null),
                        ])
                    }))
        } else {
            for c in checks {
                Output.line((c.ok ? "ok    " : "FAIL  ") + c.name + ": " + c.detail)
                if let fix = c.fix, !c.ok { Output.line("      fix: " + fix) }
            }
        }
        return checks.allSatisfy(\.ok) ? ExitCode.ok : ExitCode.refused
    }

    static func runChecks() -> [Check] {
        var out: [Check] = []
        let inst = LinkCtl.installation()
        let db = DesktopDatabase(directories: inst.directories)
        let record = InstallRecord.read(inst.recordPath)

        // The bus and the daemon.
        if let address = BusAddress.session() {
            out.append(Check(name: "bus", ok: true, detail: "session bus at \(address)", fix: nil))
            do {
                let client = try DaemonClient.connect()
                let v =
                    try client.property("Version", of: API.managerPath, interface: API.managerInterface)?.stringValue
                    ?? "?"
                out.append(
                    Check(name: "daemon", ok: true, detail: "linkrouterd \(v) answers as \(API.busName)", fix: nil))
            } catch {
                out.append(
                    Check(
                        name: "daemon", ok: false, detail: error.text,
                        fix:
                            "systemctl --user status linkrouterd (or journalctl --user -u linkrouterd); linkctl install sets up activation"
                    ))
            }
        } else {
            out.append(
                Check(
                    name: "bus", ok: false,
                    detail: "no session bus (DBUS_SESSION_BUS_ADDRESS unset, no $XDG_RUNTIME_DIR/bus)",
                    fix: "log in to a desktop session, or run inside dbus-run-session"))
        }

        // Activation and the unit.
        // A package's (in the system directories) serves as well as the user's own.
        out.append(fileCheck("activation file", inst.serviceFileSearchPath, key: "Exec", group: "D-BUS Service"))
        out.append(fileCheck("systemd unit", inst.unitSearchPath, key: "ExecStart", group: "Service"))

        // Registered schemes and the https claim: the same check the daemon runs at start.
        let ownFiles = (record?.files ?? []).filter { FileSystem.baseName($0).hasPrefix(OwnEntries.idPrefix) }
        for finding in record.map({ HandlerCheck.run(record: $0, database: db) }) ?? [] {
            switch finding {
            case .handles(let id, let mime):
                out.append(Check(name: mime, ok: true, detail: "handled by \(id)", fix: nil))
            case .missing(let id, let path):
                out.append(
                    Check(
                        name: id, ok: false, detail: "\(path) is missing",
                        fix: "linkctl install (or linkctl register SCHEME) again"))
            case .staleExec(let id, let program):
                out.append(
                    Check(
                        name: id, ok: false, detail: "its Exec runs \(program), which does not exist (stale)",
                        fix: "\(inst.linkctl) install, or linkctl register again from the linkctl you use"))
            case .notDefault(let id, let mime, let current):
                out.append(
                    Check(
                        name: mime, ok: false, detail: "handled by \(current ?? "nothing"), not \(id)",
                        fix: "xdg-mime default \(id) \(mime)"))
            case .sharedWith(_, let mime, let others):
                let scheme = String(mime.dropFirst("x-scheme-handler/".count))
                out.append(
                    Check(
                        name: mime, ok: false,
                        detail:
                            "\(others.joined(separator: ", ")) can take it too: the OpenURI portal (Flatpak and Snap browsers) asks which app opens each link, and picking the app hands it a login's code",
                        fix:
                            "linkctl register \(scheme) (makes linkrouter the only handler; deep links still reach the app)"
                    ))
            }
        }
        // A pick the OpenURI portal remembers wins over the default: it must be linkrouter's.
        if let portal = PortalChoices.onSessionBus() {
            for path in ownFiles {
                let id = FileSystem.baseName(path)
                guard let text = try? FileSystem.readText(path) else { continue }
                // For http(s) the portal always takes the default; only other schemes go by picks.
                for mime in DesktopEntry(id: id, path: path, text: text).mimeTypes
                where !mime.hasSuffix("/http") && !mime.hasSuffix("/https") {
                    guard let picks = try? portal.picks(for: mime) else { continue }
                    for pick in picks where !pick.picked(id) {
                        out.append(
                            Check(
                                name: mime, ok: false,
                                detail:
                                    "the OpenURI portal remembers \(pick.handler) as \(pick.requester.isEmpty ? "host apps'" : pick.requester + "'s") pick for it, which wins over linkrouter: that browser's login callbacks would go to \(pick.handler)",
                                fix:
                                    "linkctl register \(String(mime.dropFirst("x-scheme-handler/".count))) (forgets the pick)"
                            ))
                    }
                }
            }
        }
        // More than one linkrouter entry for one scheme, or ours not in the record.
        let userApps = FileSystem.list(inst.applicationsDirectory).filter {
            $0.hasPrefix(OwnEntries.idPrefix) && $0.hasSuffix(".desktop")
        }
        for id in userApps where !ownFiles.contains(inst.applicationsDirectory + "/" + id) {
            out.append(
                Check(
                    name: id, ok: false,
                    detail: "a linkrouter desktop file that no install recorded (stale or a duplicate)",
                    fix:
                        "rm \(inst.applicationsDirectory)/\(id) && update-desktop-database \(inst.applicationsDirectory)"
                ))
        }

        // The browser web links go to (the same rule the daemon and `open` use).
        let (browser, gone) = Browsers(database: db).forWebLinks(record: record)
        if let gone {
            out.append(
                Check(
                    name: "browser", ok: false,
                    detail: "the browser recorded at install, \(gone), has no launchable desktop entry",
                    fix:
                        "linkctl uninstall && xdg-settings set default-web-browser YOUR.desktop && linkctl install --claim-https"
                ))
        } else if let browser {
            out.append(
                Check(
                    name: "browser", ok: true,
                    detail: record?.browser != nil
                        ? "web links go to \(browser.id) (\(browser.path))" : "logins open in \(browser.id)", fix: nil))
        } else {
            out.append(
                Check(
                    name: "browser", ok: false, detail: "no default web browser is set",
                    fix: "xdg-settings set default-web-browser firefox.desktop"))
        }

        // Deep links: each app and claim, and what keeps one from taking links.
        let (apps, problems) = LinkApps(database: db).directory(record: record)
        for (scheme, app) in apps.schemes.sorted(by: { $0.key < $1.key }) {
            out.append(
                Check(
                    name: "app " + scheme, ok: true,
                    detail:
                        "\(scheme): links that are not login callbacks go to \(app.id) (\(app.delivery == .dbus ? "D-Bus activation" : "Exec"))",
                    fix: nil))
        }
        for claim in apps.claims {
            out.append(
                Check(
                    name: "claim " + claim.prefix, ok: true,
                    detail:
                        "claimed by \(claim.app.id)\(record?.claims[claim.app.id]?.contains(claim.prefix) == true ? " (your claim, linkctl claim add)" : "")\(record?.browser == nil ? " (not in effect: linkrouter does not handle https; linkctl install --claim-https)" : "")",
                    fix: nil))
        }
        for p in problems {
            out.append(
                Check(
                    name: "deep links " + p.subject, ok: false, detail: p.reason,
                    fix: p.reason.contains("not installed")
                        ? "install the app, or linkctl register SCHEME --app OTHER.desktop"
                        : "fix the app's desktop entry, or linkctl register SCHEME --app OTHER.desktop"))
        }
        for scheme in (record?.apps.keys.sorted() ?? [])
        where apps.schemes[scheme] == nil && !problems.contains(where: { $0.subject == scheme }) {
            out.append(
                Check(
                    name: "app " + scheme, ok: false, detail: "no app takes \(scheme): deep links",
                    fix: "linkctl register \(scheme) --app APP.desktop"))
        }

        // What declared accounts depend on: the keyring their tokens live in, and a notification server for
        // consent prompts and sign-in notices.
        out += accountChecks()

        // Focus (issue 45): what kind of session this is, whether a click's token can reach linkctl open through
        // linkrouter's entries, and whether the notification server hands one on with a click.
        out += activationChecks(ownFiles: ownFiles)

        // The desktop database lists our entries.
        if !ownFiles.isEmpty {
            let cache = inst.applicationsDirectory + "/mimeinfo.cache"
            let text = (try? FileSystem.readText(cache)) ?? ""
            let missing = ownFiles.map(FileSystem.baseName).filter { !text.contains($0) }
            out.append(
                Check(
                    name: "desktop database", ok: missing.isEmpty,
                    detail: missing.isEmpty
                        ? "\(cache) lists linkrouter's entries"
                        : "\(cache) does not list \(missing.joined(separator: ", "))",
                    fix: missing.isEmpty ? nil : "update-desktop-database \(inst.applicationsDirectory)"))
        }
        return out
    }

    /// With accounts declared: the Secret Service (for `store=keyring` ones) and a notification server, each a
    /// failing line with its fix when missing. Nothing without accounts: links need neither.
    static func accountChecks() -> [Check] {
        let paths = LinkRouterPaths()
        let declared =
            (paths.accountsDirectory.map { AccountFiles.read(directory: $0, owner: .user).accounts } ?? [])
            + AccountFiles.read(directory: paths.systemAccountsDirectory, owner: .system).accounts
        guard !declared.isEmpty else { return [] }
        var out: [Check] = []
        let kept = declared.filter { $0.store == .keyring }.map(\.name)
        if !kept.isEmpty {
            let names = kept.joined(separator: ", ")
            switch SecretStore.defaultCollectionProblem(busAddress: BusAddress.session()) {
            case nil:
                out.append(
                    Check(
                        name: "keyring", ok: true,
                        detail: "the Secret Service's default collection is there and unlocked, for \(names)",
                        fix: nil))
            case .locked?:
                out.append(
                    Check(
                        name: "keyring", ok: false,
                        detail:
                            "the Secret Service's default collection is locked: \(names) cannot be refreshed or read",
                        fix: "unlock it (log in to the desktop, or open your keyring manager)"))
            case let problem?:
                out.append(
                    Check(
                        name: "keyring", ok: false, detail: "\(names) keep tokens in the keyring: \(problem)",
                        fix:
                            "headless: gnome-keyring-daemon --unlock --components=secrets, its password on stdin (README); or --store memory"
                    ))
            }
        }
        let server = (try? DBusConnection.session())?.nameHasOwner("org.freedesktop.Notifications") ?? false
        out.append(
            Check(
                name: "notification server", ok: server,
                detail: server
                    ? "org.freedesktop.Notifications answers: consent prompts and sign-in notices can be shown"
                    : "no org.freedesktop.Notifications on the session bus: an app's request for an account is refused (no one can be asked) and sign-in notices are not shown",
                fix: server ? nil : "start your desktop's notification server (GNOME Shell, Plasma, dunst, mako)"))
        return out
    }

    /// The session type, linkrouter's entries' `StartupNotify`, and the notification server's spec version: the
    /// parts a window's coming to the front depends on.
    static func activationChecks(ownFiles: [String]) -> [Check] {
        var out: [Check] = []
        let wayland = Environment.nonEmpty("WAYLAND_DISPLAY")
        let x11 = Environment.nonEmpty("DISPLAY")
        let session =
            if let wayland {
                "Wayland (WAYLAND_DISPLAY=\(wayland)): a window comes to the front only with an activation token from the window the person used; linkrouter hands on the one each click carries"
            } else if let x11 {
                "X11 (DISPLAY=\(x11)): startup ids, which linkrouter hands on as it would Wayland's tokens"
            } else {
                "no graphical session here (no WAYLAND_DISPLAY or DISPLAY): nothing to bring to the front"
            }
        out.append(Check(name: "session", ok: true, detail: session, fix: nil))
        // GIO (gio open, GNOME apps, Firefox) hands a launch its click's token only for an entry with
        // StartupNotify=true; entries written before issue 45 say false.
        let silent = ownFiles.filter { path in
            guard let text = try? FileSystem.readText(path) else { return false }
            return !DesktopEntry(id: FileSystem.baseName(path), path: path, text: text).startupNotify
        }.map(FileSystem.baseName)
        if silent.isEmpty {
            if !ownFiles.isEmpty {
                out.append(
                    Check(
                        name: "activation path", ok: true,
                        detail:
                            "linkrouter's entries ask for startup notification: each click's token reaches linkctl open",
                        fix: nil))
            }
        } else {
            out.append(
                Check(
                    name: "activation path", ok: false,
                    detail:
                        "\(silent.joined(separator: ", ")) say StartupNotify=false: GIO (GNOME, Firefox) then hands linkctl open no activation token, and the window a link goes to stays behind",
                    fix: "linkctl install (and linkctl register SCHEME for each scheme) again"))
        }
        if let bus = try? DBusConnection.session(), bus.nameHasOwner("org.freedesktop.Notifications"),
            let m = try? BusProxy(
                destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                interface: "org.freedesktop.Notifications"
            ).message("GetServerInformation", []),
            let info = try? bus.callArguments(m, timeoutMilliseconds: 5000), info.count == 4
        {
            let name = info[0].plainText ?? "?"
            let spec = info[3].plainText ?? "?"
            let tokens = spec.split(separator: ".").compactMap { Int($0) }.lexicographicallyPrecedes([1, 2]) == false
            out.append(
                Check(
                    name: "notifications", ok: true,
                    detail: tokens
                        ? "\(name) (Desktop Notifications \(spec)) may send a click's activation token (ActivationToken), which a sign-in's browser is opened with"
                        : "\(name) speaks Desktop Notifications \(spec), older than 1.2: a click on a sign-in notice brings no activation token, so its browser may open behind",
                    fix: nil))
        }
        return out
    }

    /// The first of `paths` that exists is the one in use (the user's before a package's).
    static func fileCheck(_ name: String, _ paths: [String], key: String, group: String) -> Check {
        guard let path = paths.first(where: { FileSystem.status($0, followSymlinks: true) != nil }) ?? paths.first,
            let text = try? FileSystem.readText(path)
        else {
            return Check(name: name, ok: false, detail: "\(paths.first ?? name) is missing", fix: "linkctl install")
        }
        guard let exec = KeyFile(parsing: text).value(key, in: group),
            let program = exec.split(separator: " ").first.map(String.init)
        else {
            return Check(name: name, ok: false, detail: "\(path) has no \(key)=", fix: "linkctl install")
        }
        guard FileSystem.isExecutable(program) else {
            return Check(
                name: name, ok: false, detail: "\(path) runs \(program), which does not exist",
                fix: "linkctl install (from the linkctl beside the linkrouterd you want)")
        }
        return Check(name: name, ok: true, detail: "\(path) runs \(program)", fix: nil)
    }
}
