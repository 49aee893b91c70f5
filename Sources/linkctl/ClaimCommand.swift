import DesktopIntegration
import LinkRouterCore
import LinkRouterFiles
import SystemKit

/// `linkctl claim add|list|remove`: https claims for apps that ship none
/// (Telegram Desktop for `https://t.me/`), kept in linkrouter's install
/// record rather than in a copy of the app's desktop entry (a copy would hide
/// the package's entry and go stale on its next upgrade). They rank with the
/// apps' own `X-LinkRouter-Claims` by the same longest-prefix rule; on an equal
/// prefix the user's claim wins. `uninstall` removes them with the record.
enum ClaimCommand {
    static let spec = CommandSpec(
        name: "claim", summary: "Give an app https links it does not claim itself: add, list or remove a claim.",
        operands: "add PREFIX | list | remove PREFIX", operandCount: 1...2,
        options: [
            .value("app", "DESKTOP-ID", "with add: the app that gets the links, e.g. telegram-desktop.desktop"),
            .flag("json", "print JSON"),
        ],
        details: """
            A claim is https, a host and a path prefix ending in "/" (https://t.me/); links under it
            go to the app once linkrouter handles web links (linkctl install --claim-https). The app
            must be one linkrouter can hand links to (installed, Type=Application, a program that
            takes a URL). linkctl claim list shows every claim, yours and the apps' own.
            """,
        run: run)

    static func run(_ args: ParsedArguments) -> Int32 {
        let action = args.operands[0]
        let prefix = args.operands.count > 1 ? args.operands[1] : nil
        switch (action, prefix) {
        case ("add", let prefix?):
            guard let app = args.value("app") else {
                return LinkCtl.usageFailure(spec, "claim add needs --app DESKTOP-ID")
            }
            return add(prefix, app: app, args)
        case ("remove", let prefix?):
            if args.value("app") != nil { return LinkCtl.usageFailure(spec, "claim remove takes only the PREFIX") }
            return remove(prefix, args)
        case ("list", nil):
            if args.value("app") != nil { return LinkCtl.usageFailure(spec, "claim list takes no --app") }
            return list(args)
        default:
            return LinkCtl.usageFailure(
                spec, "use claim add PREFIX --app DESKTOP-ID, claim list, or claim remove PREFIX")
        }
    }

    static func add(_ prefix: String, app id: String, _ args: ParsedArguments) -> Int32 {
        let inst = LinkCtl.installation()
        let database = DesktopDatabase(directories: inst.directories)
        guard id.hasSuffix(".desktop"), !id.contains("/") else {
            return LinkCtl.usageFailure(
                spec, "--app takes a desktop file id such as telegram-desktop.desktop, not \(id)")
        }
        guard let entry = database.entry(id) else {
            Output.error(
                "no desktop entry \(id) in \(inst.directories.dataSearchPath.map { $0 + "/applications" }.joined(separator: ":"))"
            )
            return ExitCode.refused
        }
        if let why = AppCheck.problem(entry, named: true) {
            Output.error("\(id) cannot take links: \(why)")
            return ExitCode.refused
        }
        let claim: HTTPSClaim
        do { claim = try HTTPSClaim.parse(prefix, app: AppCheck.linkApp(entry)) } catch {
            Output.error(error.message)
            return ExitCode.refused
        }
        var record = InstallRecord.read(inst.recordPath) ?? InstallRecord()
        if record.leftToBrowser.contains(claim.host) {
            Output.error(
                "\(claim.host) is left to the browser (linkctl install --leave-to-browser); a claim on it would never apply"
            )
            return ExitCode.refused
        }
        if let owner = record.claims.first(where: { $0.key != id && $0.value.contains(prefix) })?.key {
            Output.error("you already gave \(prefix) to \(owner); linkctl claim remove \(prefix) first")
            return ExitCode.refused
        }
        if !(record.claims[id] ?? []).contains(prefix) { record.claims[id, default: []].append(prefix) }
        do { try record.write(inst.recordPath) } catch {
            Output.error("cannot record the claim: \(error)")
            return ExitCode.cantCreate
        }
        let note =
            record.browser == nil
            ? "not in effect until linkrouter handles web links: linkctl install --claim-https" : "in effect"
        if args.json {
            Output.json(
                .object([
                    ("prefix", .string(prefix)), ("app", .string(id)), ("in_effect", .bool(record.browser != nil)),
                ]))
        } else {
            Output.fields([("claim", prefix), ("app", id), ("status", note)])
        }
        return ExitCode.ok
    }

    static func remove(_ prefix: String, _ args: ParsedArguments) -> Int32 {
        let inst = LinkCtl.installation()
        guard var record = InstallRecord.read(inst.recordPath),
            let id = record.claims.first(where: { $0.value.contains(prefix) })?.key
        else {
            let database = DesktopDatabase(directories: inst.directories)
            if let app = LinkApps(database: database).directory(record: InstallRecord.read(inst.recordPath)).apps.claims
                .first(where: { $0.prefix == prefix })?.app.id
            {
                Output.error(
                    "\(prefix) is claimed by \(app)'s own desktop entry, not by you; leave its host to the browser with linkctl install --claim-https --leave-to-browser HOST"
                )
            } else {
                Output.error("no claim \(prefix) was added with linkctl claim add; linkctl claim list shows the claims")
            }
            return ExitCode.refused
        }
        let left = record.claims[id]!.filter { $0 != prefix }
        record.claims[id] = left.isEmpty ? nil : left
        do { try record.write(inst.recordPath) } catch {
            Output.error("cannot record the change: \(error)")
            return ExitCode.cantCreate
        }
        if args.json {
            Output.json(.object([("removed", .string(prefix)), ("app", .string(id))]))
        } else {
            Output.fields([("removed", prefix), ("app", id)])
        }
        return ExitCode.ok
    }

    static func list(_ args: ParsedArguments) -> Int32 {
        let inst = LinkCtl.installation()
        let record = InstallRecord.read(inst.recordPath)
        let directory = LinkApps(database: DesktopDatabase(directories: inst.directories)).directory(record: record)
        let mine = record?.claims ?? [:]
        // The order routing uses: longest prefix first; the first of an equal prefix wins.
        var seen: Set<String> = []
        let rows: [(prefix: String, app: String, from: String, effective: Bool)] = directory.apps.claims.map { c in
            let from =
                mine[c.app.id]?.contains(c.prefix) == true ? "linkctl claim add" : "the app's X-LinkRouter-Claims"
            let first = seen.insert(c.host + ":" + c.port + c.path).inserted
            return (c.prefix, c.app.id, from, first && record?.browser != nil)
        }
        if args.json {
            Output.json(
                .array(
                    rows.map { r in
                        .object([
                            ("prefix", .string(r.prefix)), ("app", .string(r.app)), ("from", .string(r.from)),
                            ("in_effect", .bool(r.effective)),
                        ])
                    }))
        } else if rows.isEmpty {
            Output.line("no claims; add one with linkctl claim add https://HOST/PATH/ --app APP.desktop")
        } else {
            Output.table(
                ["PREFIX", "APP", "IN EFFECT", "FROM"],
                rows.map { [$0.prefix, $0.app, $0.effective ? "yes" : "no", $0.from] })
            if record?.browser == nil {
                Output.line("(not in effect: linkrouter does not handle web links; linkctl install --claim-https)")
            }
        }
        for p in directory.problems where mine[p.subject] != nil { StandardStreams.err("linkctl: \(p)\n") }
        return ExitCode.ok
    }
}
