/// `linkctl token` as the full linkctl's `TokenCommand` answers it, for the
/// forms tools run on every request: `token NAME` (or `--issuer URL`) with
/// `--min-valid`, `--scope`, `--resource`, `--audience`, printing the token
/// alone (for `Authorization: Bearer $(linkctl token NAME)`), or as `--json`,
/// `--header` or `--env` ask; and `--dpop METHOD URL`, printing the
/// `Authorization` and `DPoP` header lines (or `--json`) from one `GetToken`.
/// The daemon's warnings go to stderr, a refusal in the same words with the
/// same exit status. Every other form (`--interactive`, `refresh`, …) goes to
/// the full linkctl.
enum FrontToken {
    struct Request {
        var name = ""
        var url: String?
        var minValid: UInt32?
        var strings: [(String, String)] = []
        var resources: [String] = []
        var printing = TokenPrinting.token

        func has(_ option: String) -> Bool { strings.contains { $0.0 == option } }
        /// A proof is asked for (`--dpop`, a URL, a nonce): the full linkctl's `proof` path.
        var wantsProof: Bool {
            url != nil || has(TokenOptionNames.dpopMethod.1) || has(TokenOptionNames.dpopURL.1)
                || has(TokenOptionNames.dpopNonce.1)
        }
    }

    /// The request from `token`'s arguments, or nil for any form the front does not serve (the full linkctl parses
    /// it and says what is wrong).
    static func request(_ arguments: ArraySlice<String>) -> Request? {
        var request = Request()
        guard
            let args = FrontArguments(
                arguments,
                options: [TokenOptionNames.minValidFlag, TokenOptionNames.resource.0]
                    + TokenOptionNames.strings.map { $0.0 },
                flags: TokenPrinting.flags.map { $0.0 }, repeatable: [TokenOptionNames.resource.0])
        else { return nil }
        let operands = args.operands
        for (flag, value) in args.given {
            if let printing = TokenPrinting.flags.first(where: { $0.0 == flag })?.1 {
                // Only one of them is given (the full linkctl says so otherwise).
                guard request.printing == .token else { return nil }
                request.printing = printing
            } else if flag == TokenOptionNames.minValidFlag {
                // Parsed as the full linkctl parses it (`UInt32(text)`); anything else is its to refuse.
                guard let value, let n = UInt32(value) else { return nil }
                request.minValid = n
            } else if flag == TokenOptionNames.resource.0, let value {
                request.resources.append(value)
            } else if let option = TokenOptionNames.strings.first(where: { $0.0 == flag }), let value {
                request.strings.append((option.1, value))
            }
        }
        // NAME [URL], or --issuer URL or --for URL without NAME; never NAME and --issuer, never `refresh` (the full
        // linkctl's).
        guard operands.count <= 2, operands.first != "refresh", operands.first.map({ !$0.isEmpty }) ?? true else {
            return nil
        }
        let byIssuer = request.has(TokenOptionNames.issuer.1)
        let nameless = byIssuer || request.has(TokenOptionNames.forResource.1)
        guard operands.isEmpty ? nameless : !byIssuer else { return nil }
        request.name = operands.first ?? ""
        request.url = operands.count == 2 ? operands[1] : nil
        // A proof needs --dpop METHOD and one URL (after NAME or --dpop-url), and a NAME here.
        if request.wantsProof {
            guard request.has(TokenOptionNames.dpopMethod.1), !byIssuer,
                (request.url != nil) != request.has(TokenOptionNames.dpopURL.1),
                request.printing == .token || request.printing == .json
            else { return nil }
        }
        return request
    }

    static func run(_ request: Request, _ process: FrontProcess) -> Int32 {
        var options: [(String, FrontBus.Option)] = []
        if let n = request.minValid { options.append((TokenOptionNames.minValidKey, .uint32(n))) }
        for (key, value) in request.strings { options.append((key, .string(value))) }
        if let url = request.url { options.append((TokenOptionNames.dpopURL.1, .string(url))) }
        if !request.resources.isEmpty { options.append((TokenOptionNames.resource.1, .strings(request.resources))) }
        switch getToken(request.name, options, proof: request.wantsProof, process) {
        case .reply(let reply):
            guard let token = token(of: reply) else { return failed("the daemon answered GetToken without a token") }
            guard request.wantsProof else {
                warn(reply, account: request.name, bearer: true)
                FrontProcess.out(request.printing.printed(token, reply.entries))
                return ExitCode.ok
            }
            guard let lines = TokenPrinting.proofPrinted(token, reply.entries, json: request.printing == .json) else {
                return failed(TokenPrinting.noProof)
            }
            warn(reply, account: request.name, bearer: false)
            FrontProcess.out(lines)
            return ExitCode.ok
        case .refused(let name, let message):
            FrontProcess.error(RefusalText.text(name: name, message: message))
            return ExitCode.forRefusal(name)
        case .unreachable(let detail):
            FrontProcess.error(DaemonReachability.unreachable(detail, daemon: FrontProcess.daemonCommand()))
            return ExitCode.unavailable
        }
    }

    /// `GetToken`: on the agent socket where the daemon listens there (a proof, which the daemon signs into the bus's
    /// answer, only over the bus), else over the bus (handed over when there is none to reach). A refresh, or an
    /// unlock prompt the keyring shows, can take a while (as `AccountToken.get` waits).
    static func getToken(
        _ name: String, _ options: [(String, FrontBus.Option)], proof: Bool = false, _ process: FrontProcess
    ) -> FrontBus.Answer {
        if !proof, let answer = FrontAgent.getToken(name, options, timeoutMilliseconds: 120_000) { return answer }
        guard var bus = FrontBus.connect() else { process.handOver() }
        return bus.call("GetToken", [.string(name), .options(options)], timeoutMilliseconds: 120_000)
    }

    /// A `GetToken` answer's token; nil when it has none.
    static func token(of reply: FrontBus.Reply) -> String? {
        guard let token = reply.entry(TokenReplyKeys.token), !token.isEmpty else { return nil }
        return token
    }

    /// What linkctl says on stderr beside a token, as `AccountToken.get` and its callers say it: the binding warning
    /// when the caller sends it as a bearer token (`bearer`), then the daemon's own warning.
    static func warn(_ reply: FrontBus.Reply, account: String, bearer: Bool) {
        if bearer, BearerWarning.isBound(tokenType: reply.entry(TokenReplyKeys.tokenType)) {
            FrontProcess.err(BearerWarning.text(account: account))
        }
        if let warning = reply.entry(TokenReplyKeys.warning) { FrontProcess.error("warning: " + warning) }
    }

    /// An answer without what was asked for, said as the full linkctl says it (under D-Bus's generic error name).
    static func missing(_ message: String) -> String {
        RefusalText.text(name: "org.freedesktop.DBus.Error.Failed", message: message)
    }

    static func failed(_ message: String) -> Int32 {
        FrontProcess.error(missing(message))
        return ExitCode.refused
    }
}
