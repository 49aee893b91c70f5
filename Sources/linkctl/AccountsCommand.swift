import DBusKit
import LinkRouterAPI
import SystemKit

/// `linkctl accounts`: the accounts the daemon knows and whether each is signed in.
enum AccountsCommand {
    static let spec = CommandSpec(
        name: "accounts", summary: "List the accounts: name, issuer, owner, signed in or not, subject, expiry, where tokens live.",
        operands: "", operandCount: 0...0, options: [.flag("json", "print JSON")],
        details: "Signed in is `unknown` when the keyring could not be read (locked, or no Secret Service).",
        run: run)

    static let columns = ["name", "issuer", "owner", "signed_in", "sub", "expires_at", "store"]

    static func run(_ args: ParsedArguments) -> Int32 {
        do {
            let client = try DaemonClient.connect()
            // Accounts not read yet are read from the keyring first (its deadline is 30 s).
            let reply = try client.call("ListAccounts", timeoutMilliseconds: 120_000)
            guard case .array(_, let items)? = reply.first else { return ExitCode.ok }
            let rows: [[(String, DBusValue)]] = items.compactMap { $0.stringKeyedEntries }
            func text(_ v: DBusValue?) -> String? {
                switch v?.variantValue ?? v {
                case .string(let s)?: return s
                case .int64(let n)?: return String(n)
                default: return nil
                }
            }
            if args.json {
                Output.json(
                    .array(
                        rows.map { r in
                            .object(
                                r.compactMap { k, v in
                                    if case .int64(let n)? = v.variantValue { return (k, .number(n)) }
                                    return text(v).map { (k, .string($0)) }
                                })
                        }))
            } else if rows.isEmpty {
                StandardStreams.err("No accounts; declare one with: linkctl account add NAME --issuer URL --client-id ID\n")
            } else {
                Output.table(columns.map { $0.uppercased() }, rows.map { r in columns.map { c in text(r.first { $0.0 == c }?.1) ?? "-" } })
            }
            return ExitCode.ok
        } catch {
            Output.error(error.text)
            return error.exitCode
        }
    }
}
