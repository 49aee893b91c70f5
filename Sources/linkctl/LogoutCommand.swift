import DBusKit
import LinkRouterCore
import SystemKit

/// `linkctl logout NAME`: the account's tokens forgotten by the daemon and the keyring (`Logout`).
enum LogoutCommand {
    static let spec = CommandSpec(
        name: "logout", summary: "Forget an account's tokens, in the daemon and in the keyring (the account stays declared).",
        operands: "NAME", operandCount: 1...1, options: [],
        details: """
            Sign in again with linkctl login NAME; remove the account with linkctl account remove NAME. The tokens are revoked \
            at the provider too where its discovery offers revocation (RFC 7009); what it answers is in the daemon's log.
            """,
        run: run)

    static func run(_ args: ParsedArguments) -> Int32 {
        let name = args.operands[0]
        do throws(RouterError) { try Account.checkName(name) } catch { return LinkCtl.usageFailure(spec, error.message) }
        do {
            let client = try DaemonClient.connect()
            _ = try client.call("Logout", [.string(name)], timeoutMilliseconds: 120_000)
            StandardStreams.err("Signed out of \(name); its tokens are gone from the keyring.\n")
            return ExitCode.ok
        } catch {
            Output.error(error.text)
            return error.exitCode
        }
    }
}
