import DBusKit
import LinkRouterCore

/// `linkctl begin`: starts a session and prints it, its authorize URL and
/// the claim token with which `linkctl wait` (another process) takes it over.
enum BeginCommand {
    static let spec = CommandSpec(
        name: "begin", summary: "Begin a login session; print its object path, authorize URL and claim token.",
        operands: "", operandCount: 0...0,
        options: OptionFlags.options(SessionRequest.options) + [.flag("json", "print JSON")],
        details: """
            The session outlives this process: it is parked when linkctl exits and taken back by
            `linkctl wait SESSION --claim-token TOKEN`. A claim token is made for you unless you give one.
            """,
        run: run)

    static func run(_ args: ParsedArguments) -> Int32 {
        let token = args.value("claim-token") ?? OptionFlags.randomToken()
        let options: DBusValue
        do {
            let entries = try OptionFlags.entries(SessionRequest.options, args, override: ["claim_token": token])
            options = .vardict(entries + SystemEnvironment.activationOptions(besides: entries))
        } catch {
            return LinkCtl.usageFailure(spec, error.message)
        }
        do {
            let client = try DaemonClient.connect()
            let reply = try client.call("BeginSession", [options])
            let path = reply.first?.objectPathValue?.rawValue ?? ""
            let url = reply.count > 1 ? reply[1].stringValue ?? "" : ""
            if args.json {
                Output.json(
                    .object([
                        ("session", .string(path)), ("authorize_url", .string(url)), ("claim_token", .string(token)),
                    ]))
            } else {
                Output.fields([("session", path), ("authorize_url", url), ("claim_token", token)])
            }
            return ExitCode.ok
        } catch {
            Output.error(error.text)
            return error.exitCode
        }
    }
}
