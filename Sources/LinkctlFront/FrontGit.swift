/// git's credential helper as the full linkctl's `CredentialCommand` is it,
/// for the form git runs on every fetch and push: an account given by name
/// (`credential.helper = linkrouter --account NAME`, or `!linkctl credential
/// git --account NAME`). `get` answers with the account's token; `store` and
/// the operations newer git sends are read and ignored, as the protocol asks.
/// `erase`, `--issuer`, and a helper without `--account` (which picks the
/// account by the request's URL) go to the full linkctl.
enum FrontGit {
    struct Request {
        var account: String
        var username = TokenUsername.fallback
        var operation: String
    }

    /// The request from the arguments after `credential git` (or after `git-credential-linkrouter`), or nil for any
    /// form the front does not serve. Checked before standard input is read, so the full linkctl still has it.
    static func request(_ arguments: ArraySlice<String>) -> Request? {
        guard let args = FrontArguments(arguments, options: ["account", "username"]), args.operands.count == 1 else {
            return nil
        }
        let operation = args.operands[0]
        // The checks the full linkctl makes: a refusal is its to word.
        guard let account = args.value("account"), operation != "erase", (try? AccountName.check(account)) != nil
        else { return nil }
        let name = args.value("username") ?? TokenUsername.fallback
        guard TokenUsername.isGitUsername(name) else { return nil }
        return Request(account: account, username: name, operation: operation)
    }

    static func run(_ request: Request, _ process: FrontProcess) -> Int32 {
        // Connected before standard input is read: without a bus, the full linkctl still has git's request to read
        // (unless the agent socket is there to answer it).
        var bus: FrontBus?
        if request.operation == "get" {
            bus = FrontBus.connect()
            if bus == nil, !FrontAgent.present { process.handOver() }
        }
        let message: GitCredentialMessage
        do throws(RouterError) {
            message = try GitCredentialMessage.parse(FrontProcess.readAll(maxBytes: 1 << 20))
        } catch {
            FrontProcess.error("git's credential request: " + error.message)
            return ExitCode.refused
        }
        // Not served (a plain-http host, say), or not a `get`: nothing is answered, and git asks its next helper.
        guard request.operation == "get", message.servable else { return ExitCode.ok }
        var options: [(String, FrontBus.Option)] = [(TokenOptionNames.idToken, .boolean(false))]
        // The daemon checks the URL against the account's git_urls, when it declares some.
        if let url = message.url { options.append((TokenOptionNames.forURL, .string(url))) }
        let asked: FrontBus.Answer
        if let answer = FrontAgent.getToken(request.account, options, timeoutMilliseconds: 120_000) {
            asked = answer
        } else if var connected = bus {
            asked = connected.call(
                "GetToken", [.string(request.account), .options(options)], timeoutMilliseconds: 120_000)
        } else {
            asked = .unreachable("the agent socket did not answer and the session bus cannot be reached")
        }
        switch asked {
        case .reply(let reply):
            guard let token = FrontToken.token(of: reply) else {
                return fail(FrontToken.missing("the daemon answered GetToken without a token"), ExitCode.refused)
            }
            FrontToken.warn(reply, account: request.account, bearer: true)
            FrontProcess.out(
                GitCredentialMessage.answer(
                    to: message, token: token, username: request.username,
                    expiresAt: reply.integer(TokenReplyKeys.expiresAt)
                ).text)
            return ExitCode.ok
        case .refused(let name, let text):
            // Not this account's forge: nothing is answered, and git asks its next helper.
            if name == BusNames.errorPrefix + RouterError.Code.accessDenied.rawValue { return ExitCode.ok }
            return fail(RefusalText.text(name: name, message: text), ExitCode.forRefusal(name))
        case .unreachable(let detail):
            return fail(
                DaemonReachability.unreachable(detail, daemon: FrontProcess.daemonCommand()), ExitCode.unavailable)
        }
    }

    /// git then asks no other helper and no terminal: the reason is on stderr.
    static func fail(_ text: String, _ status: Int32) -> Int32 {
        FrontProcess.error(text)
        FrontProcess.out("quit=1\n")
        return status
    }
}
