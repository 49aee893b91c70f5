/// docker's credential helper as the full linkctl's `DockerCredential` is
/// it, for the operation docker runs before each pull and push:
/// `docker-credential-linkrouter get`, the server URL on stdin and the
/// account that lists its registry answering with its token. The accounts
/// are asked before stdin is read, so that when the daemon cannot answer,
/// the full linkctl still has docker's request (and says why in its words).
/// `list`, `store`, `erase` and `version` go to the full linkctl.
enum FrontDocker {
    static let name = LinkctlLayout.dockerHelperName

    static func get(_ process: FrontProcess) -> Int32 {
        guard var bus = FrontBus.connect() else { process.handOver() }
        guard case .reply(let listed) = bus.call("ListAccounts", [], timeoutMilliseconds: 120_000) else {
            process.handOver()
        }
        let input = DockerRegistry.serverURL(FrontProcess.readAll(maxBytes: 4096))
        guard !input.isEmpty else { return notServed(DockerRegistry.noServerURL) }
        // A registry reached in the clear (`http://`) gets no token (issue 36): a bare host, or https.
        guard let registry = DockerRegistry.host(of: input) else { return notServed(DockerRegistry.notFound) }
        guard let (accountName, username) = ListedAccount.forRegistry(registry, in: listed.records) else {
            return notServed(DockerRegistry.notFound)
        }
        let options: [(String, FrontBus.Option)] = [(TokenOptionNames.idToken, .boolean(false))]
        switch bus.call("GetToken", [.string(accountName), .options(options)], timeoutMilliseconds: 120_000) {
        case .reply(let reply):
            guard let token = FrontToken.token(of: reply) else {
                return failed(FrontToken.missing("the daemon answered GetToken without a token"))
            }
            if BearerWarning.isBound(tokenType: reply.entry(TokenReplyKeys.tokenType)) {
                FrontProcess.err(BearerWarning.text(account: accountName))
            }
            if let warning = reply.entry(TokenReplyKeys.warning) {
                FrontProcess.err(name + ": warning: " + warning + "\n")
            }
            FrontProcess.out(DockerRegistry.answer(serverURL: input, username: username, secret: token).text + "\n")
            return ExitCode.ok
        case .refused(let error, let message):
            return failed(RefusalText.text(name: error, message: message))
        case .unreachable(let detail):
            return failed(DaemonReachability.unreachable(detail, daemon: FrontProcess.daemonCommand()))
        }
    }

    /// What docker clients match on, on stdout, with exit 1.
    static func notServed(_ text: String) -> Int32 {
        FrontProcess.out(text + "\n")
        return ExitCode.refused
    }

    /// The reason on stderr under the helper's name, and docker's words on stdout.
    static func failed(_ text: String) -> Int32 {
        FrontProcess.err(name + ": " + text + "\n")
        return notServed(DockerRegistry.notFound)
    }
}
