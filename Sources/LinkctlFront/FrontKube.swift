/// kubectl's exec plugin as the full linkctl's `CredentialCommand.kube` is
/// it, for the form kubectl runs before its requests: `credential kube
/// --account NAME` (or `--issuer URL`), answering with an ExecCredential of
/// the apiVersion kubectl asked in. A request the front does not read as the
/// full linkctl would, and a person at kubectl's terminal whose account is
/// not signed in (the full linkctl runs the login then), go to the full
/// linkctl.
enum FrontKube {
    struct Request {
        /// The account's name; empty when asked by issuer (the daemon picks, as `GetToken` with an empty name does).
        var name = ""
        var issuer: String?
    }

    /// The request from the arguments after `credential kube`, or nil for any form the front does not serve.
    static func request(_ arguments: ArraySlice<String>) -> Request? {
        guard let args = FrontArguments(arguments, options: ["account", "issuer"]), args.operands.isEmpty else {
            return nil
        }
        let account = args.value("account")
        var request = Request(issuer: args.value("issuer"))
        // One of the two, and a name the full linkctl would take: a refusal is its to word.
        guard (account == nil) != (request.issuer == nil) else { return nil }
        if let account {
            guard (try? AccountName.check(account)) != nil else { return nil }
            request.name = account
        }
        return request
    }

    static func run(_ request: Request, _ process: FrontProcess) -> Int32 {
        var exec = FrontExecInfo.Request(apiVersion: ExecCredential.defaultAPIVersion, interactive: false)
        if let info = FrontProcess.nonEmpty(ExecCredential.variable) {
            guard let parsed = FrontExecInfo.parse(info) else { process.handOver() }
            exec = parsed
        }
        var options: [(String, FrontBus.Option)] = []
        if let issuer = request.issuer { options.append((TokenOptionNames.issuer.1, .string(issuer))) }
        // A person is at the terminal: no desktop notice is posted for this call.
        if exec.interactive { options.append(("interactive", .boolean(true))) }
        switch FrontToken.getToken(request.name, options, process) {
        case .reply(let reply):
            guard let token = FrontToken.token(of: reply) else {
                return FrontToken.failed("the daemon answered GetToken without a token")
            }
            FrontToken.warn(reply, account: request.name, bearer: true)
            FrontProcess.out(
                ExecCredential.answer(
                    apiVersion: exec.apiVersion, token: token, expiresAt: reply.integer(TokenReplyKeys.expiresAt)
                )
                .text + "\n")
            return ExitCode.ok
        case .refused(let name, let message):
            // As kubelogin does: a person is there, so the full linkctl runs the login now.
            if exec.interactive, name == BusNames.errorPrefix + RouterError.Code.notSignedIn.rawValue {
                process.handOver()
            }
            FrontProcess.error(RefusalText.text(name: name, message: message))
            return ExitCode.forRefusal(name)
        case .unreachable(let detail):
            FrontProcess.error(DaemonReachability.unreachable(detail, daemon: FrontProcess.daemonCommand()))
            return ExitCode.unavailable
        }
    }
}
