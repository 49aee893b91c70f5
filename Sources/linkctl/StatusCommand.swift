import DBusKit
import LinkRouterAPI

/// `linkctl status [SESSION]`: the daemon's state, or one session's properties.
enum StatusCommand {
    static let spec = CommandSpec(
        name: "status", summary: "Show whether the daemon runs (and its version), or one session's status.",
        operands: "[SESSION]", operandCount: 0...1, options: [.flag("json", "print JSON")],
        details: "Exit status 69 when no daemon is reachable.", run: run)

    static func run(_ args: ParsedArguments) -> Int32 {
        do {
            let client = try DaemonClient.connect()
            if let operand = args.operands.first {
                guard let path = DaemonClient.sessionPath(operand) else {
                    return LinkCtl.usageFailure(spec, "\(operand) is not a session path or id")
                }
                let all = try client.call(
                    path: path, interface: API.propertiesInterface, "GetAll", [.string(API.sessionInterface.rawValue)])
                let props = (all.first?.stringKeyedEntries ?? []).map { k, v -> (String, String) in
                    switch v.variantValue {
                    case .string(let s)?: return (k, s)
                    case .uint64(let n)?: return (k, String(n))
                    default: return (k, "")
                    }
                }
                if args.json {
                    Output.json(
                        .object([("session", .string(path.rawValue))] + props.map { ($0.0, JSON.string($0.1)) }))
                } else {
                    Output.fields([("Session", path.rawValue)] + props)
                }
                return ExitCode.ok
            }
            let version =
                try client.property("Version", of: API.managerPath, interface: API.managerInterface)?.stringValue ?? ""
            let sessions = try client.call("ListAllSessions")
            var counts: [String: Int] = [:]
            if case .array(_, let items)? = sessions.first {
                for case .structure(let f) in items { counts[f[1].stringValue ?? "", default: 0] += 1 }
            }
            let pending = (counts["pending"] ?? 0) + (counts["resumed"] ?? 0)
            if args.json {
                Output.json(
                    .object([
                        ("running", .bool(true)), ("version", .string(version)), ("pending", .number(Int64(pending))),
                        ("sessions", .number(Int64(counts.values.reduce(0, +)))),
                    ]))
            } else {
                Output.fields([
                    ("Daemon", "running (\(API.busName))"), ("Version", version), ("Pending", String(pending)),
                    ("Sessions", String(counts.values.reduce(0, +))),
                ])
            }
            return ExitCode.ok
        } catch {
            if args.json, error.isUnreachable {
                Output.json(.object([("running", .bool(false)), ("reason", .string(error.text))]))
            } else {
                Output.error(error.text)
            }
            return error.exitCode
        }
    }
}
