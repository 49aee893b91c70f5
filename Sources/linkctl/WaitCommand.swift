import DBusKit
import LinkRouterAPI
import LinkRouterCore

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
        ],
        details: "SESSION is the object path or the id at its end. Exit status 2 when the login ended without a code, 3 on --timeout.",
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
            return try waitAndPrint(client, path: path, timeout: timeout, json: args.json)
        } catch {
            Output.error(error.text)
            return error.exitCode
        }
    }

    static func parseTimeout(_ text: String?) -> UInt32? {
        guard let text else { return 0 }
        return UInt32(text)
    }

    /// Calls `Wait` with a bus timeout a little longer than the daemon's own.
    static func waitAndPrint(_ client: DaemonClient, path: ObjectPath, timeout: UInt32, json: Bool) throws(DaemonClient.Failure) -> Int32 {
        let busTimeout: Int32 = timeout == 0 || timeout > UInt32(Int32.max - 5000) ? Int32.max : Int32(timeout) + 5000
        let reply = try client.call(path: path, interface: API.sessionInterface, "Wait", [.uint32(timeout)], timeoutMilliseconds: busTimeout)
        let fields = (reply.first?.stringKeyedEntries ?? []).compactMap { k, v -> (String, String)? in
            guard let s = v.variantValue?.stringValue else { return nil }
            return (k, s)
        }
        if json {
            Output.json(.object(fields.map { ($0.0, JSON.string($0.1)) }))
        } else {
            Output.fields(fields)
        }
        return ExitCode.ok
    }
}
