import DBusKit
import LinkRouterAPI
import SystemKit

/// `linkctl accounts`: the accounts the daemon knows and whether each is signed in.
enum AccountsCommand {
    static let spec = CommandSpec(
        name: "accounts",
        summary: "List the accounts: name, issuer, owner, signed in or not, subject, expiry, where tokens live.",
        operands: "", operandCount: 0...0, options: [.flag("json", "print JSON")],
        details: "Signed in is `unknown` when the keyring could not be read (locked, or no Secret Service).",
        run: run)

    static let columns = ["name", "issuer", "owner", "signed_in", "sub", "expires_at", "store", "keyring"]

    static func run(_ args: ParsedArguments) -> Int32 {
        do {
            let client = try DaemonClient.connect()
            // Accounts not read yet are read from the keyring first (its deadline is 30 s).
            let reply = try client.call("ListAccounts", timeoutMilliseconds: 120_000)
            guard case .array(_, let items)? = reply.first else { return ExitCode.ok }
            if args.json {
                Output.json(.array(items.map { JSON(vardict: $0) }))
            } else if items.isEmpty {
                StandardStreams.err(
                    "No accounts; declare one with: linkctl account add NAME --issuer URL --client-id ID\n")
            } else {
                Output.table(
                    columns.map { $0.uppercased() },
                    items.map { item in columns.map { item.entry($0)?.plainText ?? "-" } })
            }
            return ExitCode.ok
        } catch {
            Output.error(error.text)
            return error.exitCode
        }
    }
}
