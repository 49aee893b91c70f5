import DBusKit
import LinkRouterAPI
import LinkRouterCore
import SystemKit

/// `linkctl token NAME`: a fresh token of an account's (`GetToken`), from
/// the daemon's memory or refreshed once for every caller. `linkctl token
/// refresh`: new tokens for a refresh token the caller holds (`RefreshTokens`),
/// with the same checks on a new ID token as a login.
enum TokenCommand {
    static let spec = CommandSpec(
        name: "token",
        summary: "Print a fresh token of an account's (`token NAME`), or refresh tokens you hold (`token refresh`).",
        operands: "[NAME [URL]|refresh]", operandCount: 0...2,
        // `--issuer` is both tables' (an account's issuer, a refresh token's): listed once, with both meanings.
        options: OptionFlags.options(TokenRequest.options)
            + OptionFlags.options(RefreshRequest.options).filter { !shared.contains($0.name) } + [
                .flag(
                    "json",
                    "print JSON (token NAME: token, token_type, expires_at, scope, resource; refresh: the token response and claims)"
                ),
                .flag("show-tokens", "with refresh: print the tokens too"),
                .flag("header", "with NAME: print the whole header line, `Authorization: Bearer TOKEN`"),
                .flag(
                    "env",
                    "with NAME: print export lines a shell can eval (LINKROUTER_TOKEN, LINKROUTER_TOKEN_TYPE, LINKROUTER_EXPIRES_AT, LINKROUTER_SCOPE)"
                ),
                .flag("no-browser", "with --interactive: print the sign-in URL instead of opening the browser"),
            ],
        details: """
            token NAME prints the token alone on stdout, for `Authorization: Bearer $(linkctl token NAME)`. \
            Exit status 4 when the account is not signed in (linkctl login NAME; --interactive signs in instead), \
            5 when the keyring is locked or missing, 2 when the provider refused a refresh token or a new ID token failed a check. \
            token NAME --dpop METHOD URL prints two header lines for a request to a resource server with a DPoP-bound token: \
            `Authorization: DPoP TOKEN` and `DPoP: PROOF` (the proof names the method, the URL and the token's hash; the key never leaves the daemon). \
            Exit status 1 (NoDPoPKey) when the account's tokens are not bound to a DPoP key.
            """,
        run: run)

    /// The flags only `token refresh` reads, and those only `token NAME` reads: a flag either works or is refused,
    /// never taken and ignored (`token NAME --scope X` once printed the account's own token, exit 0).
    static let shared = Set(TokenRequest.options.rows.map(\.flag.name)).intersection(
        RefreshRequest.options.rows.map(\.flag.name))
    static let refreshOnly =
        RefreshRequest.options.rows.map(\.flag.name).filter { !shared.contains($0) } + ["show-tokens"]
    static let accountOnly =
        TokenRequest.options.rows.map(\.flag.name).filter { !shared.contains($0) }
        + ["no-browser", "header", "env"]

    static func run(_ args: ParsedArguments) -> Int32 {
        guard !args.operands.isEmpty || args.value("issuer") != nil || args.value("for") != nil else {
            return LinkCtl.usageFailure(spec, "give an account's NAME, --issuer URL, or --for URL")
        }
        let refreshing =
            args.operands.first == "refresh" && (args.value("refresh-token") != nil || args.value("issuer") != nil)
        func given(_ flag: String) -> Bool { args.has(flag) || !args.all(flag).isEmpty }
        if refreshing, let flag = accountOnly.first(where: given) {
            return LinkCtl.usageFailure(spec, "--\(flag) goes with linkctl token NAME, not with token refresh")
        }
        if !refreshing, let flag = refreshOnly.first(where: given) {
            return LinkCtl.usageFailure(
                spec,
                "--\(flag) goes with linkctl token refresh (a refresh token you hold), not with an account's NAME, whose own token is handed out as it is"
            )
        }
        let proofAsked = args.value("dpop") != nil || args.value("nonce") != nil || args.value("dpop-url") != nil
        if args.operands.count == 2, !proofAsked, args.operands.first != "refresh" {
            return LinkCtl.usageFailure(
                spec,
                "linkctl token takes one account NAME, not \"\(args.operands[1])\" too (a second operand is the URL of a DPoP proof, with --dpop METHOD)"
            )
        }
        if args.operands.count == 2 || proofAsked {
            let url = args.operands.count == 2 ? args.operands[1] : args.value("dpop-url")
            guard args.operands.first != "refresh", args.value("dpop") != nil, let url,
                args.operands.count == 1 || args.value("dpop-url") == nil
            else {
                return LinkCtl.usageFailure(
                    spec, "a proof needs both --dpop METHOD and the URL: linkctl token NAME --dpop GET https://…")
            }
            return proof(args, url: url)
        }
        guard refreshing else { return account(args) }
        guard args.value("issuer") != nil, args.value("client-id") != nil, var token = args.value("refresh-token")
        else {
            return LinkCtl.usageFailure(spec, "give --issuer, --client-id and --refresh-token")
        }
        if token == "-" {
            token = String(decoding: StandardStreams.readAll(maxBytes: 16 * 1024), as: UTF8.self)
            while let last = token.last, last == "\n" || last == "\r" || last == " " { token.removeLast() }
        }
        let options: DBusValue
        do {
            options = .vardict(
                try OptionFlags.entries(RefreshRequest.options, args, override: ["refresh_token": token]))
        } catch {
            return LinkCtl.usageFailure(spec, error.message)
        }
        do {
            let client = try DaemonClient.connect()
            let reply = try client.call("RefreshTokens", [options], timeoutMilliseconds: 60_000)
            ResultOutput.print(reply.first, json: args.json, showTokens: args.has("show-tokens"))
            return ExitCode.ok
        } catch {
            Output.error(error.text)
            return error.exitCode
        }
    }

    /// `token NAME --dpop METHOD URL`: the token and the proof for it in one `GetToken` (`dpop_method`, `dpop_url`):
    /// the daemon signs the proof for the very token it answers with, so they cannot come apart.
    static func proof(_ args: ParsedArguments, url: String) -> Int32 {
        // Asked by issuer, there is no NAME: the daemon picks the account (`GetToken` with an empty name).
        let name = args.operands.first ?? ""
        var options: [(String, DBusValue)]
        do { options = try OptionFlags.entries(TokenRequest.options, args, override: ["dpop_url": url]) } catch {
            return LinkCtl.usageFailure(spec, error.message)
        }
        // The access token, whatever the account hands out by default: a proof goes with it.
        options = options.filter { $0.0 != TokenOptionNames.idToken }
        do throws(DaemonClient.Failure) {
            let token = try AccountToken.get(name, options, bearer: false)
            guard
                let lines = TokenPrinting.proofPrinted(
                    token.token, ReplyEntries(vardict: token.fields), json: args.json)
            else {
                throw DaemonClient.Failure.refused(name: DBusError.failed, message: TokenPrinting.noProof)
            }
            if let warning = token.warning { StandardStreams.err("linkctl: warning: \(warning)\n") }
            StandardStreams.out(lines)
            return ExitCode.ok
        } catch {
            Output.error(error.text)
            return error.exitCode
        }
    }

    /// `token NAME`.
    static func account(_ args: ParsedArguments) -> Int32 {
        let name = args.operands.first ?? ""
        if !name.isEmpty, args.value("issuer") != nil {
            return LinkCtl.usageFailure(spec, "give an account's NAME or --issuer URL, not both")
        }
        guard let printing = TokenPrinting.chosen(TokenPrinting.flags.map(\.0).filter { args.has($0) }) else {
            return LinkCtl.usageFailure(spec, TokenPrinting.conflict)
        }
        let options: [(String, DBusValue)]
        do { options = try OptionFlags.entries(TokenRequest.options, args) } catch {
            return LinkCtl.usageFailure(spec, error.message)
        }
        do {
            let reply: AccountToken.Reply
            do {
                reply = try AccountToken.get(name, options)
            } catch
                where args.has("interactive") && name.isEmpty && args.value("for") != nil
                && (error.code == .notSignedIn || error.code == .unknownAccount)
            {
                // For a resource: its account, declared from its metadata first when there is none (a client
                // registered where the provider allows), then signed in.
                let account = try resourceAccount(args.value("for") ?? "", unknown: error.code == .unknownAccount)
                try AccountToken.signIn(
                    account, openBrowser: !args.has("no-browser"), asking: AccountToken.stepUp(options))
                reply = try AccountToken.get(name, options)
            } catch
                where args.has("interactive") && (error.code == .notSignedIn || error.code == .stepUpRequired)
            {
                // Asked by issuer: the sign-in names the account the daemon picked by the same rule. A step-up's
                // sign-in asks for what the token was asked with.
                var account = name
                if account.isEmpty, let url = args.value("for") {
                    account = try resourceAccount(url, unknown: false)
                } else if account.isEmpty {
                    account = try AccountToken.named(issuer: args.value("issuer") ?? "")
                }
                try AccountToken.signIn(
                    account, openBrowser: !args.has("no-browser"), asking: AccountToken.stepUp(options))
                reply = try AccountToken.get(name, options)
            }
            if let warning = reply.warning { StandardStreams.err("linkctl: warning: \(warning)\n") }
            StandardStreams.out(printing.printed(reply.token, ReplyEntries(vardict: reply.fields)))
            return ExitCode.ok
        } catch {
            Output.error(error.text)
            return error.exitCode
        }
    }

    /// The account `token --for URL --interactive` signs in to: the one declared for that resource (its `resource`),
    /// or, when none is (`unknown`), one declared now (`AddAccount` with `for`), named after the resource's host.
    static func resourceAccount(_ url: String, unknown: Bool) throws(DaemonClient.Failure) -> String {
        let client = try DaemonClient.connect()
        var items: [DBusValue] = []
        if case .array(_, let listed)? = try client.call("ListAccounts", timeoutMilliseconds: 120_000).first {
            items = listed
        }
        if !unknown {
            let named = items.filter { $0.entry("resource")?.plainText == url }.compactMap {
                $0.entry("name")?.plainText
            }
            if named.count == 1 { return named[0] }
            throw .refused(
                name: RouterError.Code.notSignedIn.dbusName,
                message: "the account for \(url) is not signed in; sign in with: linkctl login NAME")
        }
        let host = (try? URIReference.split(url))?.host ?? ""
        let name = host.isEmpty ? "resource" : String(host.prefix(64))
        // Never over an account of that name (AddAccount would replace it).
        guard !items.contains(where: { $0.entry("name")?.plainText == name }) else {
            throw .refused(
                name: RouterError.Code.unknownAccount.dbusName,
                message:
                    "no account signs in where \(url) says to, and the name \(name) is taken; declare one: linkctl account add NAME --for \(url)"
            )
        }
        _ = try client.call(
            "AddAccount", [.string(name), .vardict([("for", .string(url))])], timeoutMilliseconds: 120_000)
        StandardStreams.err("linkctl: added account \(name) for \(url) (linkctl accounts shows it)\n")
        return name
    }
}
