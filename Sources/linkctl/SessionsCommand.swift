import DBusKit
import LinkRouterAPI
import SystemKit

/// `linkctl sessions`: every session the daemon holds, with its status, so
/// a person can see each step of a login (nothing secret is shown).
enum SessionsCommand {
    static let spec = CommandSpec(
        name: "sessions", summary: "List the daemon's sessions: path, status, redirect URI, owner and the owner's app.",
        operands: "", operandCount: 0...0,
        options: [
            .flag("mine", "only this connection's own (none, for a fresh linkctl; for scripts)"),
            .flag("json", "print JSON"),
        ],
        details: "", run: run)

    static func run(_ args: ParsedArguments) -> Int32 {
        do {
            let client = try DaemonClient.connect()
            let mine = args.has("mine")
            let reply = try client.call(mine ? "ListSessions" : "ListAllSessions")
            guard case .array(_, let items)? = reply.first else { return ExitCode.ok }
            var rows: [[String]] = items.compactMap { item in
                guard case .structure(let f) = item else { return nil }
                return f.map { v in v.stringValue ?? v.objectPathValue?.rawValue ?? "" }
            }
            if !mine {
                // The owner's app (flatpak:ID, snap:NAME, host), from each session's OwnerApp property.
                for i in rows.indices {
                    let app = DaemonClient.sessionPath(rows[i][0]).flatMap { p in
                        try? client.property("OwnerApp", of: p, interface: API.sessionInterface)
                    }
                    rows[i].append(app?.stringValue ?? "")
                }
            }
            if args.json {
                Output.json(
                    .array(
                        rows.map { r in
                            var fields: [(String, JSON)] = [
                                ("session", .string(r[0])), ("status", .string(r[1])), ("redirect_uri", .string(r[2])),
                            ]
                            if r.count > 4 { fields += [("owner", .string(r[3])), ("owner_app", .string(r[4]))] }
                            return .object(fields)
                        }))
            } else if rows.isEmpty {
                StandardStreams.err("No sessions.\n")
            } else {
                Output.table(
                    mine
                        ? ["SESSION", "STATUS", "REDIRECT URI"]
                        : ["SESSION", "STATUS", "REDIRECT URI", "OWNER", "APP"],
                    rows.map { r in
                        [String(r[0].dropFirst(API.sessionsPath.rawValue.count + 1))]
                            + r.dropFirst().map { $0.isEmpty ? "-" : $0 }
                    })
            }
            return ExitCode.ok
        } catch {
            Output.error(error.text)
            return error.exitCode
        }
    }
}
