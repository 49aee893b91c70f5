/// `linkctl open URI` as the full linkctl's `OpenCommand` does it, for the
/// case that runs on every click: the daemon answers. The rules are the
/// daemon's and the full linkctl's own (`LinkIntake`, compiled from the same
/// file); when no daemon answers, the full linkctl takes over (the inbox, or
/// the browser directly).
enum FrontOpen {
    /// The link from `open`'s operands (`URI` or `-- URI`), or nil for
    /// anything else (options, `--help`, a wrong count): the full linkctl
    /// parses those and says what is wrong.
    static func link(_ operands: ArraySlice<String>) -> String? {
        let rest = operands.first == "--" ? operands.dropFirst() : operands
        guard rest.count == 1, let uri = rest.first else { return nil }
        if operands.first != "--", uri.utf8.first == 0x2D { return nil }
        return uri
    }

    static func run(_ argument: String, _ process: FrontProcess) -> Int32 {
        // What a launcher decoded on the way (KDE) is put back first.
        let uri = LinkIntake.restoringEncoding(argument)
        if let problem = LinkIntake.refusal(uri) {
            FrontProcess.error(problem)
            return ExitCode.usage
        }
        if LinkIntake.isLoop(uri, hopMarked: FrontProcess.isSet(LinkIntake.hopVariable)) {
            FrontProcess.error(LinkIntake.loopRefusal)
            return ExitCode.refused
        }
        var context: [(String, FrontBus.Option)] = []
        if let t = FrontProcess.nonEmpty("XDG_ACTIVATION_TOKEN") {
            context.append((LinkIntake.activationTokenKey, .string(t)))
        }
        if let t = FrontProcess.nonEmpty("DESKTOP_STARTUP_ID") {
            context.append((LinkIntake.desktopStartupIDKey, .string(t)))
        }
        guard var bus = FrontBus.connect() else { process.handOver() }
        let answer =
            context.isEmpty
            ? bus.call("Route", [.string(uri)], timeoutMilliseconds: LinkIntake.clientWaitMilliseconds)
            : bus.call(
                "RouteLink", [.string(uri), .options(context)],
                timeoutMilliseconds: LinkIntake.clientWaitMilliseconds)
        switch answer {
        case .reply(let outcome):
            FrontProcess.out((outcome.string ?? "") + "\n")
            return ExitCode.ok
        case .refused(let name, let message):
            FrontProcess.error(RefusalText.text(name: name, message: message))
            return ExitCode.refused
        case .unreachable(let detail):
            // After the call went out, the full linkctl queues the link under that call's id and opens nothing
            // itself: the daemon routes it once, from the call or from the inbox.
            process.handOver(unreachable: detail, sentAs: bus.unanswered)
        }
    }
}
