import DBusKit
import LinkRouterAPI
import SystemKit

/// `linkctl accounts`: the accounts the daemon knows and whether each is signed in.
enum AccountsCommand {
    static let spec = CommandSpec(
        name: "accounts",
        summary: "List the accounts: name, issuer, owner, signed in or not, subject, expiry, where tokens live.",
        operands: "", operandCount: 0...0, options: [.flag("json", "print JSON")],
        details:
            "Signed in is `unknown` when the keyring could not be read (locked, or no Secret Service); with --json, `signed_in` is true, false or null (unknown), times are Unix seconds and lists are arrays.",
        run: run)

    static let columns = ["name", "issuer", "owner", "signed_in", "sub", "expires_at", "store", "keyring"]

    /// A table cell as a person reads it: the expiry as a UTC time, not epoch seconds.
    static func cell(_ column: String, of item: DBusValue) -> String {
        if column == "expires_at", case .int64(let at)? = item.entry(column) {
            return ResultOutput.utc(at, format: "%Y-%m-%d %H:%M UTC")
        }
        // A rotated set the keyring has not taken lasts only as long as this daemon: said where the keyring is.
        if column == "keyring", let kept = item.entry(column)?.plainText, item.entry("unsaved") != nil {
            return kept + ", not saved"
        }
        return item.entry(column)?.plainText ?? "-"
    }

    /// An account as a script reads it: `signed_in` a JSON boolean (`null` when the keyring could not say), times as
    /// numbers (Unix seconds), lists as arrays.
    static func json(_ item: DBusValue) -> JSON {
        guard case .object(let fields) = JSON(vardict: item) else { return .null }
        return .object(
            fields.map { key, value in
                guard key == "signed_in", case .string(let said) = value else { return (key, value) }
                return (key, said == "yes" ? .bool(true) : said == "no" ? .bool(false) : .null)
            })
    }

    static func run(_ args: ParsedArguments) -> Int32 {
        do {
            let client = try DaemonClient.connect()
            // Accounts not read yet are read from the keyring first (its deadline is 10 s).
            let reply = try client.call("ListAccounts", timeoutMilliseconds: 120_000)
            guard case .array(_, let items)? = reply.first else { return ExitCode.ok }
            if args.json {
                Output.json(.array(items.map(json)))
            } else if items.isEmpty {
                StandardStreams.err(
                    "No accounts; declare one with: linkctl account add NAME --issuer URL --client-id ID\n")
            } else {
                Output.table(
                    columns.map { $0.uppercased() },
                    items.map { item in columns.map { cell($0, of: item) } })
                // The provider granted other than declared (less, as a rule): said under the table, as it was granted.
                for item in items {
                    if let name = item.entry("name")?.plainText, let granted = item.entry("granted_scope")?.plainText {
                        StandardStreams.err(
                            "Note: \(name)'s provider granted the scope \"\(granted)\", not all it declares\n")
                    }
                }
            }
            return ExitCode.ok
        } catch {
            Output.error(error.text)
            return error.exitCode
        }
    }
}
