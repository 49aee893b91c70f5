import DBusKit
import LinkRouterAPI

/// `linkctl cancel SESSION`: ends a session (claiming it first with its token).
enum CancelCommand {
    static let spec = CommandSpec(
        name: "cancel", summary: "Cancel a session; anyone waiting for it gets Cancelled.",
        operands: "SESSION", operandCount: 1...1,
        options: [.value("claim-token", "TOKEN", "the session's claim token (or $LINKROUTER_CLAIM_TOKEN)")],
        details: "", run: run)

    static func run(_ args: ParsedArguments) -> Int32 {
        guard let path = DaemonClient.sessionPath(args.operands[0]) else {
            return LinkCtl.usageFailure(spec, "\(args.operands[0]) is not a session path or id")
        }
        do {
            let client = try DaemonClient.connect()
            if let token = args.value("claim-token") ?? SystemEnvironment.claimToken {
                _ = try client.call(path: path, interface: API.sessionInterface, "Claim", [.string(token)])
            }
            _ = try client.call(path: path, interface: API.sessionInterface, "Cancel")
            return ExitCode.ok
        } catch {
            Output.error(error.text)
            return error.exitCode
        }
    }
}
