import DBusKit
import LinkRouterAPI
import SystemKit

/// `linkctl grants`: the apps the person always allowed to use one of their
/// accounts (answered "Always allow" at a consent prompt), and
/// `linkctl grants revoke APP ACCOUNT` to end one; the app's next call asks again.
enum GrantsCommand {
    static let spec = CommandSpec(
        name: "grants",
        summary: "List the apps you always allowed to use an account, or end one: grants [revoke APP ACCOUNT].",
        operands: "[revoke APP ACCOUNT]", operandCount: 0...3, options: [.flag("json", "print JSON")],
        details: """
            A sandboxed app (Flatpak, Snap) that asks for one of your accounts gets it only when you say so at the \
            prompt the daemon shows (Allow once, Always allow, Deny). Always allow is remembered: listed here with \
            the app's verified id, the account, what it covers ((all): the account's own token and any narrower one; \
            else only the scope, resources or audience the prompt named) and when; \
            linkctl grants revoke flatpak:org.example.App work ends it. Removing the account ends its grants.
            """,
        run: run)

    static func run(_ args: ParsedArguments) -> Int32 {
        let ops = args.operands
        if !ops.isEmpty {
            guard ops.count == 3, ops[0] == "revoke" else {
                return LinkCtl.usageFailure(spec, "give revoke APP ACCOUNT, or nothing to list the grants")
            }
            do {
                let client = try DaemonClient.connect()
                _ = try client.call("RevokeGrant", [.string(ops[1]), .string(ops[2])])
                StandardStreams.err("\(ops[1]) may no longer use \(ops[2]) without asking you.\n")
                return ExitCode.ok
            } catch {
                Output.error(error.text)
                return error.exitCode
            }
        }
        do {
            let client = try DaemonClient.connect()
            let reply = try client.call("ListAccounts", timeoutMilliseconds: 120_000)
            guard case .array(_, let items)? = reply.first else { return ExitCode.ok }
            var rows: [[String]] = []
            var json: [JSON] = []
            for item in items {
                guard case .array(_, let grants)? = item.entry("grants") else { continue }
                let account = item.entry("name")?.plainText ?? "-"
                for g in grants {
                    let app = g.entry("app")?.plainText ?? "-"
                    let scope = g.entry("scope")?.plainText ?? ""
                    var resources: [String] = []
                    if case .array(_, let items)? = g.entry("resources") { resources = items.compactMap(\.plainText) }
                    let audience = g.entry("audience")?.plainText
                    var at: Int64 = 0
                    if case .int64(let t)? = g.entry("granted_at") { at = t }
                    // What the person allowed: the account's own token (and any narrower), or only the target named.
                    let covers =
                        ((scope.isEmpty ? [] : ["scope " + scope]) + resources.map { "resource " + $0 }
                        + (audience.map { ["audience " + $0] } ?? [])).joined(separator: ", ")
                    rows.append([
                        app, account, covers.isEmpty ? "(all)" : covers,
                        ResultOutput.utc(at, format: "%Y-%m-%d %H:%M UTC"),
                    ])
                    var fields: [(String, JSON)] = [
                        ("app", .string(app)), ("account", .string(account)), ("scope", .string(scope)),
                    ]
                    if !resources.isEmpty { fields.append(("resources", .array(resources.map { .string($0) }))) }
                    if let audience { fields.append(("audience", .string(audience))) }
                    fields.append(("granted_at", .number(at)))
                    json.append(.object(fields))
                }
            }
            if args.json {
                Output.json(.array(json))
            } else if rows.isEmpty {
                StandardStreams.err("No grants: no app may use your accounts without asking you.\n")
            } else {
                Output.table(["APP", "ACCOUNT", "COVERS", "GRANTED"], rows)
            }
            return ExitCode.ok
        } catch {
            Output.error(error.text)
            return error.exitCode
        }
    }
}
