import DBusKit
import LinkRouterAPI
import LinkRouterCore
import SystemKit

/// `linkctl login`: begin and wait in one process, the common case for
/// scripts and CLIs (like `gh auth login`, for any provider).
enum LoginCommand {
    static let spec = CommandSpec(
        name: "login", summary: "Begin a session, open the browser, wait for the callback and print the result.",
        operands: "[NAME]", operandCount: 0...1,
        options: OptionFlags.options(SessionRequest.options) + [
            .value("timeout", "MS", "give up after this many milliseconds (default: the session's ttl)"),
            .flag("json", "print JSON (with tokens: the token response and the verified ID-token claims)"),
            .flag("code-only", "with --issuer: stop at the code and verifier; do not exchange them"),
            .flag("show-tokens", "print the tokens too (plain output shows only who signed in and the expiry)"),
        ],
        details: """
            With an account's NAME (linkctl account add), the account gives the provider options and its tokens \
            are kept for linkctl token NAME. With --issuer and no --authorization-endpoint, the daemon fetches the issuer's metadata, and after the \
            callback exchanges the code and verifies the ID token (--code-only stops at the code). The result goes \
            to stdout; what is happening goes to stderr. Exit status 2 when the login ended without a code or tokens \
            (the provider refused, an ID token failed a check, expiry), 3 on --timeout.
            """,
        run: run)

    static func run(_ args: ParsedArguments) -> Int32 {
        if args.has("code-only") && args.has("exchange") {
            return LinkCtl.usageFailure(spec, "--code-only and --exchange contradict each other")
        }
        var entries: [(String, DBusValue)]
        do { entries = try OptionFlags.entries(SessionRequest.options, args) } catch {
            return LinkCtl.usageFailure(spec, error.message)
        }
        if let name = args.operands.first {
            guard args.value("account") == nil else { return LinkCtl.usageFailure(spec, "give the account once: login NAME, or --account NAME") }
            entries.append(("account", .string(name)))
        }
        // The whole login by default when the issuer says where everything is (the core's rule).
        if let request = try? OptionsDecoder.session(.vardict(entries)), SessionPlan.exchangesByDefault(request),
            !args.has("code-only"), !args.has("exchange")
        {
            entries.append(("exchange", .boolean(true)))
        }
        let options = DBusValue.vardict(entries)
        guard let timeout = WaitCommand.parseTimeout(args.value("timeout")) else {
            return LinkCtl.usageFailure(spec, "--timeout takes milliseconds (0 to 4294967295)")
        }
        do throws(DaemonClient.Failure) {
            let client = try DaemonClient.connect()
            let reply = try client.call("BeginSession", [options])
            guard let path = reply.first?.objectPathValue else { throw .refused(name: DBusError.invalidArgs, message: "BeginSession answered without a session") }
            let url = reply.count > 1 ? reply[1].stringValue ?? "" : ""
            if args.has("no-browser") {
                StandardStreams.err("Open this URL in your browser to sign in:\n  \(url)\nWaiting for the callback…\n")
            } else {
                StandardStreams.err("Opened the browser to sign in; waiting for the callback (\(path))…\n")
            }
            return try WaitCommand.waitAndPrint(client, path: path, timeout: timeout, json: args.json, showTokens: args.has("show-tokens"))
        } catch {
            Output.error(error.text)
            return error.exitCode
        }
    }
}
