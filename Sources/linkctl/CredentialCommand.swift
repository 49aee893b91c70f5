import DBusKit
import JSONKit
import LinkRouterCore
import SystemKit

/// `linkctl credential git|kube --account NAME`: an account's token in the
/// protocols git and kubectl already speak (`../shared/reference/credential-helper-protocols.md`):
///
///     git config --global credential.https://git.example.com.helper '!linkctl credential git --account work'
///     kubeconfig user: exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: linkctl,
///                             args: [credential, kube, --account, work]}
///
/// or, for a server that says where to sign in (RFC 9728), `--for URL` instead of (or with) `--account`: the
/// token `linkctl token --for URL` gives, asked for that resource alone (RFC 8707).
///
/// The token comes from the daemon (`GetToken`), fresh; nothing is stored by
/// the helper, so git's `store` is a no-op and its `erase` (after a 401) only
/// tells the daemon not to hand that token out again (`RejectToken`).
enum CredentialCommand {
    static let spec = CommandSpec(
        name: "credential",
        summary:
            "Be git's credential helper or kubectl's exec plugin for an account (`credential git|kube --account NAME`).",
        operands: "git get|store|erase | kube", operandCount: 1...2,
        options: [
            .value(
                "account", "NAME",
                "the account whose token to give (git: without it, the account whose git_urls match the request)"),
            .value(
                "issuer", "URL",
                "instead of --account: the account at this issuer (its default among several: account add --default)"),
            .value(
                "username", "NAME",
                "git: the user name given with the token (default oauth2; GitHub wants x-access-token)"),
            .value(
                "for", "URL",
                "a token for the protected resource at URL: its metadata (RFC 9728) names where to sign in, and the token is for it alone (RFC 8707); with --account, that account's"
            ),
        ],
        details: """
            git: reads git's request on stdin and answers it (Bearer where git offers it, user name and password \
            always, with the token's expiry); without --account, the account whose git_urls best match the request's \
            URL answers, and with none git goes on to its next helper. kube: reads KUBERNETES_EXEC_INFO and prints an ExecCredential of the \
            same apiVersion with the account's default token (the ID token for an account with token=id). With --for \
            URL (a forge, an API server or a cluster that publishes its metadata, RFC 9728), the token is the one \
            linkctl token --for URL gives: from the account where the resource says to sign in, for it alone. Neither \
            prompts: an account not signed in fails at once with the linkctl login line on stderr.
            """,
        run: run)

    static func run(_ args: ParsedArguments) -> Int32 {
        let name = args.value("account")
        if let name {
            do throws(RouterError) { try Account.checkName(name) } catch {
                return LinkCtl.usageFailure(spec, error.message)
            }
        }
        let issuer = args.value("issuer")
        if name != nil, issuer != nil {
            return LinkCtl.usageFailure(spec, "give --account NAME or --issuer URL, not both")
        }
        let resource = args.value("for")
        if resource != nil, issuer != nil {
            return LinkCtl.usageFailure(
                spec, "give --for URL or --issuer URL, not both: the resource names its issuers")
        }
        // Asked by issuer or by resource: the daemon picks the account (`GetToken` with an empty name); `which` names
        // it for a call.
        let which =
            name.map { Which.named($0, resource: resource) } ?? issuer.map(Which.issuer) ?? resource.map(Which.resource)
        switch args.operands[0] {
        case "git":
            guard args.operands.count == 2 else { return LinkCtl.usageFailure(spec, "git needs get, store or erase") }
            let username = args.value("username") ?? TokenUsername.fallback
            // A line break would add lines of its own to git's answer.
            guard TokenUsername.isGitUsername(username) else {
                return LinkCtl.usageFailure(spec, TokenUsername.gitUsernameRule)
            }
            return git(args.operands[1], account: which, username: username)
        case "kube":
            guard args.operands.count == 1 else { return LinkCtl.usageFailure(spec, "kube takes no more operands") }
            guard let which else {
                return LinkCtl.usageFailure(spec, "give --account NAME, --issuer URL or --for URL")
            }
            return kube(account: which)
        default:
            return LinkCtl.usageFailure(spec, "credential speaks git or kube, not \(args.operands[0])")
        }
    }

    /// The account a helper was told: by name (and the resource its token is for), by issuer, or by a resource
    /// alone (the daemon's pick, by the resource's metadata: `ResourceLookup`).
    enum Which {
        case named(String, resource: String?)
        case issuer(String)
        case resource(String)

        /// `GetToken`'s name and the options that pick the account.
        var call: (name: String, options: [(String, DBusValue)]) {
            switch self {
            case .named(let n, let r): (n, r.map { [(TokenOptionNames.forResource.1, .string($0))] } ?? [])
            case .issuer(let i): ("", [(TokenOptionNames.issuer.1, .string(i))])
            case .resource(let r): ("", [(TokenOptionNames.forResource.1, .string(r))])
            }
        }

        /// The account's name, for a call that takes only a name (`RejectToken`, a sign-in).
        func name() throws(DaemonClient.Failure) -> String {
            switch self {
            case .named(let n, _): n
            case .issuer(let i): try AccountToken.named(issuer: i)
            case .resource(let r): try TokenCommand.resourceAccount(r, unknown: false)
            }
        }
    }

    // MARK: git

    static func git(_ operation: String, account given: Which?, username: String) -> Int32 {
        let request: GitCredentialMessage
        do throws(RouterError) {
            request = try GitCredentialMessage.parse(StandardStreams.readAll(maxBytes: 1 << 20))
        } catch {
            Output.error("git's credential request: \(error.message)")
            return ExitCode.refused
        }
        // git's `store` after every success has nothing to add (the daemon keeps the tokens), and newer
        // git sends other operations (`capability`): anything but get and erase is ignored, as the protocol asks.
        guard operation == "get" || operation == "erase" else { return ExitCode.ok }
        // Not served (a plain-http host, say): nothing is answered, and git asks its next helper. An erase hands out
        // nothing, so one that names no protocol still says which token a server refused.
        guard request.servable || (operation == "erase" && request.value("protocol") == nil) else { return ExitCode.ok }
        // An erase names the token a server refused; without one there is nothing to tell the daemon.
        let refused = operation == "erase" ? request.value("credential") ?? request.value("password") : nil
        if operation == "erase", refused == nil { return ExitCode.ok }
        let account: Which
        if let given {
            account = given
        } else {
            // The account whose git_urls best match: none is not an error, git asks its next helper.
            guard let url = request.url else { return ExitCode.ok }
            do {
                let matches = try AccountToken.accounts().compactMap { a in
                    Account.gitMatch(a.gitURLs, url).map { (a.name, $0) }
                }
                guard let best = matches.max(by: { $0.1 < $1.1 }) else { return ExitCode.ok }
                account = .named(best.0, resource: nil)
            } catch {
                // Which account serves the host is unknown: git goes on to its other helpers (no `quit`, which would
                // stop them for every host).
                Output.error(error.text)
                return error.exitCode
            }
        }
        if let refused {
            // erase: a server refused this token (401); the daemon stops handing it out.
            do {
                let client = try DaemonClient.connect()
                _ = try client.call("RejectToken", [.string(try account.name()), .string(refused)])
            } catch {
                Output.error(error.text)
            }
            return ExitCode.ok
        }
        do {
            let (name, picking) = account.call
            // The daemon checks the URL against the account's git_urls, when it declares some.
            let url: [(String, DBusValue)] = request.url.map { [(TokenOptionNames.forURL, .string($0))] } ?? []
            let reply = try AccountToken.get(name, [(TokenOptionNames.idToken, .boolean(false))] + picking + url)
            if let warning = reply.warning { StandardStreams.err("linkctl: warning: \(warning)\n") }
            StandardStreams.out(
                GitCredentialMessage.answer(
                    to: request, token: reply.token, username: username, expiresAt: reply.expiresAt
                ).text)
            return ExitCode.ok
        } catch {
            // Not this account's forge: nothing is answered, and git asks its next helper.
            if error.code == .accessDenied { return ExitCode.ok }
            // git then asks no other helper and no terminal: the reason is on stderr.
            Output.error(error.text)
            StandardStreams.out("quit=1\n")
            return error.exitCode
        }
    }

    // MARK: kube

    static func kube(account: Which) -> Int32 {
        // KUBERNETES_EXEC_INFO: the apiVersion to answer with (kubectl 1.20 sends no `interactive`).
        var apiVersion = ExecCredential.defaultAPIVersion
        // `spec.interactive`: kubectl's stdin is a terminal a person may answer at (kubectl ≥ 1.22 sends it).
        var interactive = false
        if let info = Environment.get(ExecCredential.variable), !info.isEmpty {
            guard let parsed = try? JSONParser.parse(Array(info.utf8)), let v = parsed["apiVersion"]?.stringValue,
                ExecCredential.accepts(apiVersion: v)
            else {
                Output.error(ExecCredential.notARequest)
                return ExitCode.refused
            }
            apiVersion = v
            if case .bool(true)? = parsed["spec"]?["interactive"] { interactive = true }
        }
        do {
            // The account's default token: the ID token for an account with token=id.
            let reply: AccountToken.Reply
            do {
                // Interactive: a person is at the terminal, so no desktop notice is posted for this call.
                let (name, picking) = account.call
                reply = try AccountToken.get(
                    name, picking + (interactive ? [(TokenOptionNames.interactive, .boolean(true))] : []))
            } catch  where interactive && error.code == .notSignedIn {
                // As kubelogin does: a person is there, so the login runs now (the browser; what it says goes to
                // stderr).
                let name = try account.name()
                try AccountToken.signIn(name, openBrowser: true)
                reply = try AccountToken.get(name, account.call.options.filter { $0.0 != TokenOptionNames.issuer.1 })
            }
            if let warning = reply.warning { StandardStreams.err("linkctl: warning: \(warning)\n") }
            StandardStreams.out(
                ExecCredential.answer(apiVersion: apiVersion, token: reply.token, expiresAt: reply.expiresAt).text
                    + "\n")
            return ExitCode.ok
        } catch {
            Output.error(error.text)
            return error.exitCode
        }
    }
}
