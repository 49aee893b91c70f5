import DBusKit
import LinkRouterAPI
import LinkRouterCore
import SystemKit

/// `linkctl wait SESSION`: claims the session if given its token, then waits
/// for the callback and prints the code (and the verifier the daemon made).
enum WaitCommand {
    static let spec = CommandSpec(
        name: "wait", summary: "Wait for a session's callback and print the result (code, state, verifier…).",
        operands: "SESSION", operandCount: 1...1,
        options: [
            .value("claim-token", "TOKEN", "the token `linkctl begin` printed (or $LINKROUTER_CLAIM_TOKEN)"),
            .value("timeout", "MS", "give up after this many milliseconds (default: until the session ends)"),
            .flag("json", "print JSON"),
            .flag("show-tokens", "with a token result, print the tokens too"),
        ],
        details:
            "SESSION is the object path or the id at its end. Exit status 2 when the login ended without a code, 3 on --timeout.",
        run: run)

    static func run(_ args: ParsedArguments) -> Int32 {
        guard let path = DaemonClient.sessionPath(args.operands[0]) else {
            return LinkCtl.usageFailure(spec, "\(args.operands[0]) is not a session path or id")
        }
        guard let timeout = parseTimeout(args.value("timeout")) else {
            return LinkCtl.usageFailure(spec, "--timeout takes milliseconds (0 to 4294967295)")
        }
        do {
            let client = try DaemonClient.connect()
            if let token = args.value("claim-token") ?? SystemEnvironment.claimToken {
                _ = try client.call(path: path, interface: API.sessionInterface, "Claim", [.string(token)])
            }
            return try waitAndPrint(
                client, path: path, timeout: timeout, json: args.json, showTokens: args.has("show-tokens"))
        } catch {
            Output.error(error.text)
            return error.exitCode
        }
    }

    static func parseTimeout(_ text: String?) -> UInt32? {
        guard let text else { return 0 }
        return UInt32(text)
    }

    /// How long one `Wait` call may last: below the 25 s every D-Bus binding
    /// uses by default, so this loop is the pattern apps can copy.
    static let slice: UInt32 = 20_000

    /// The robust pattern (docs/dbus-api.md, "Waiting"): short `Wait` calls,
    /// each with a call timeout above its own, repeated on `Timeout` until the
    /// result comes or `timeout` (0: the session's ttl) passes; then
    /// `Acknowledge`, so the daemon wipes the code at once. A call that was
    /// lost on the way loses nothing: the result stays until it is acknowledged.
    static func waitAndPrint(
        _ client: DaemonClient, path: ObjectPath, timeout: UInt32, json: Bool, showTokens: Bool = false
    ) throws(DaemonClient.Failure) -> Int32 {
        let reply = try result(client, path: path, timeout: timeout)
        ResultOutput.print(reply.first, json: json, showTokens: showTokens)
        // Printed: the daemon may let go of it now (it would after its grace period anyway).
        _ = try? client.call(path: path, interface: API.sessionInterface, "Acknowledge")
        return ExitCode.ok
    }

    /// The session's result, waited for in slices (a `Wait` longer than the bus's own call timeout would be cut), up to
    /// `timeout` (0: no limit).
    static func result(_ client: DaemonClient, path: ObjectPath, timeout: UInt32) throws(DaemonClient.Failure)
        -> [DBusValue]
    {
        let deadline = timeout == 0 ? nil : Clock.monotonicMilliseconds() + Int64(timeout)
        var reply: [DBusValue]
        // A daemon that stops while it holds the call (an upgrade restarting
        // it, say) may leave it unanswered: asking again starts the next one.
        var vanished = 0
        while true {
            let left = deadline.map { max(0, $0 - Clock.monotonicMilliseconds()) } ?? Int64(slice)
            let ask = UInt32(min(Int64(slice), left))
            do {
                reply = try client.call(
                    path: path, interface: API.sessionInterface, "Wait", [.uint32(ask)],
                    timeoutMilliseconds: Int32(ask) + 5000)
                break
            } catch {
                let again: Bool
                switch error {
                case .refused: again = error.code == .timeout
                case .unavailable, .unanswered:
                    vanished += 1
                    again = vanished <= 3
                }
                guard again, deadline.map({ Clock.monotonicMilliseconds() < $0 }) ?? true else { throw error }
            }
        }
        return reply
    }
}
