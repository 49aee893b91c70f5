import DBusKit
import LinkRouterCore
import LinkRouterFiles

/// `linkctl explain URL`: a dry run of `open`: what would happen and why.
enum ExplainCommand {
    static let spec = CommandSpec(
        name: "explain", summary: "Say what `linkctl open URL` would do with a URL, and why, without doing it.",
        operands: "URL", operandCount: 1...1, options: [.flag("json", "print JSON")],
        details: "", run: run)

    static func run(_ args: ParsedArguments) -> Int32 {
        let given = args.operands[0]
        let uri = LinkIntake.restoringEncoding(given)
        var outcome: String
        var reason: String
        if let problem = LinkIntake.refusal(uri) {
            (outcome, reason) = ("refused", "linkctl itself refuses it: " + problem)
        } else {
            do {
                let client = try DaemonClient.connect()
                let reply = try client.call("Explain", [.string(uri)])
                outcome = reply.first?.stringValue ?? ""
                reason = reply.count > 1 ? reply[1].stringValue ?? "" : ""
            } catch {
                switch LinkIntake.withoutDaemon(
                    uri, pending: ClaimedCallbacksFile.read(LinkRouterPaths().claimedCallbacksFile))
                {
                case .browser:
                    (outcome, reason) = (
                        RouteOutcome.passthrough.word,
                        "no daemon is reachable (\(error.text)); linkctl would open it in the browser directly"
                    )
                case .queue:
                    (outcome, reason) = (
                        "queued", "no daemon is reachable (\(error.text)); linkctl would queue it for the daemon"
                    )
                }
            }
        }
        if uri != given {
            reason +=
                " (the link as given had raw spaces or non-ASCII characters, a launcher's decoding; they were percent-encoded again: \(uri))"
        }
        if args.json {
            Output.json(.object([("url", .string(uri)), ("outcome", .string(outcome)), ("reason", .string(reason))]))
        } else {
            Output.fields([("outcome", outcome), ("reason", reason)])
        }
        return ExitCode.ok
    }
}
