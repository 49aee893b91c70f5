import DBusKit
import HTTPKit
import LinkRouterAPI
import LinkRouterCore
import SystemKit

/// `linkctl fetch [NAME] URL`: one HTTP request to a protected resource with
/// the right token, and its challenge answered once (`ChallengeAnswer`), as
/// a curl that knows where to sign in. Without NAME the token is the one
/// `--for` rules give (`GetToken` with `for`: the resource's metadata names
/// the provider, the token is asked for it alone; metadata found only through
/// a 401's `resource_metadata` is looked for by sending the request without a
/// token first); with NAME, that account's
/// own. A 401 or 403 whose Bearer challenge says `invalid_token` gets a fresh
/// token (the refused one given back, `RejectToken`), `insufficient_scope`
/// one for the scope held and the scope asked, `insufficient_user_authentication` one from a sign-in of the
/// classes and age it names (RFC 9470; `--interactive` signs in so); the request is sent again
/// once, never in a loop, and each outcome is said on stderr. The body goes
/// to stdout as it came; the exit status is curl's where it has one (0, 22
/// with `--fail` for an HTTP error, 7 when the server cannot be reached).
enum FetchCommand {
    static let spec = CommandSpec(
        name: "fetch",
        summary: "Send one HTTP request to a protected resource with the right token (`fetch [NAME] URL`).",
        operands: "[NAME] URL", operandCount: 1...2,
        options: [
            .value("request", "METHOD", "the method: GET (default), POST, PUT, PATCH or DELETE"),
            .value(
                "header", "'NAME: VALUE'", "a request header (not Authorization: linkctl sets it)", repeatable: true),
            .value("data", "DATA", "the body: the text itself, @FILE, or @- for stdin (POST by default)"),
            .value("resource", "URI", "the resource the token is for, when it is not URL itself (RFC 8707)"),
            .flag("include", "print the status line and the answer's headers before its body"),
            .flag("fail", "exit 22 on an HTTP error (400 and above), as curl --fail"),
            .flag("interactive", "sign in when a challenge asks for a stronger or newer sign-in (a step-up)"),
            .flag("no-browser", "with --interactive: print the sign-in URL instead of opening the browser"),
        ],
        details: """
            Without NAME, the token is found from the resource's metadata (RFC 9728) as linkctl token --for URL finds \
            it, and asked for that resource alone; where the metadata is not at its well-known place, the request goes \
            once without a token, and a 401 naming where it is (resource_metadata) leads to the token. With NAME, it \
            is that account's. A 401 or 403 challenge is answered \
            once: invalid_token with a fresh token, insufficient_scope with a token for the wider scope (where the \
            sign-in granted it), insufficient_user_authentication (RFC 9470) with a token from a sign-in of the \
            acr_values and max_age it names: the account's, if it was made so, else with --interactive a new sign-in \
            asking for them (the ID token checked), else the linkctl login line that asks for them; then the request \
            is sent again, once. The answer's body goes to stdout as it came.
            """,
        run: run)

    /// curl's exit statuses, where linkctl fetch ends as curl would.
    static let httpError: Int32 = 22
    static let unreachable: Int32 = 7
    /// A body or an answer larger than this is refused (held in memory whole).
    static let maxBytes = 64 << 20

    static func run(_ args: ParsedArguments) -> Int32 {
        let name = args.operands.count == 2 ? args.operands[0] : ""
        let url = args.operands.last ?? ""
        let methodName = (args.value("request") ?? (args.value("data") == nil ? "GET" : "POST")).uppercased()
        guard let method = HTTPRequest.Method(rawValue: methodName) else {
            return LinkCtl.usageFailure(spec, "--request takes GET, POST, PUT, PATCH or DELETE, not \(methodName)")
        }
        var headers = HTTPHeaders()
        for line in args.all("header") {
            guard let colon = line.firstIndex(of: ":") else {
                return LinkCtl.usageFailure(spec, "--header takes 'NAME: VALUE', not \(line)")
            }
            let field = String(line[..<colon])
            guard field.lowercased() != "authorization" else {
                return LinkCtl.usageFailure(spec, "linkctl fetch sets Authorization itself, from the account's token")
            }
            headers.add(field, String(line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }))
        }
        var body: [UInt8] = []
        if let data = args.value("data") {
            if data == "@-" {
                body = StandardStreams.readAll(maxBytes: maxBytes + 1)
            } else if data.hasPrefix("@") {
                do {
                    body = Array(try FileSystem.readText(String(data.dropFirst()), maxBytes: maxBytes + 1).utf8)
                } catch {
                    Output.error("could not read \(data.dropFirst()): \(error)")
                    return ExitCode.refused
                }
            } else {
                body = Array(data.utf8)
            }
            guard body.count <= maxBytes else { return LinkCtl.usageFailure(spec, "--data is larger than 64 MiB") }
        }
        var options: [(String, DBusValue)] = []
        if name.isEmpty {
            options.append((TokenOptionNames.forResource.1, .string(args.value("resource") ?? url)))
        } else if let resource = args.value("resource") {
            options.append((TokenOptionNames.resource.1, .stringArray([resource])))
        }
        var fetch = Fetch(url: url, method: method, headers: headers, body: body)
        do {
            var token: AccountToken.Reply
            switch try firstToken(name, options, url: url, probing: args.value("resource") == nil, &fetch) {
            case .token(let reply, let found):
                token = reply
                options = found
            case .answered(let response): return answer(response, args)
            }
            if let warning = token.warning { StandardStreams.err("linkctl: warning: \(warning)\n") }
            var response = try fetch.send(token.token)
            if [401, 403].contains(response.status) {
                let challenge = BearerChallenge.parse(response.headers.values("WWW-Authenticate"))
                let held = token.fields?.entry(TokenReplyKeys.scope)?.stringValue
                let account = token.fields?.entry(TokenReplyKeys.account)?.stringValue ?? name
                let said = "the server answered \(response.status)\(challenge?.error.map { " " + $0 } ?? "")"
                switch ChallengeAnswer.to(challenge, held: held) {
                case .refresh:
                    let client = try DaemonClient.connect()
                    _ = try client.call("RejectToken", [.string(account), .string(token.token)])
                    token = try AccountToken.get(name, options)
                    StandardStreams.err("linkctl: fetch: \(said); sent again with a fresh token of \(account)'s\n")
                    response = try fetch.send(token.token)
                case .widen(let scope):
                    if let wider = try widened(name, options, scope: scope, account: account, said: said) {
                        token = wider
                        StandardStreams.err("linkctl: fetch: \(said); sent again with a token for \"\(scope)\"\n")
                        response = try fetch.send(token.token)
                    }
                case .stepUp(let acr, let maxAge):
                    var asking: [(String, DBusValue)] = []
                    if let acr { asking.append((TokenOptionNames.acrValues.1, .string(acr))) }
                    if let maxAge { asking.append((TokenOptionNames.maxAge.1, .uint32(UInt32(clamping: maxAge)))) }
                    let wants = [acr.map { "acr_values=\($0)" }, maxAge.map { "max_age=\($0)" }].compactMap { $0 }
                        .joined(separator: ", ")
                    if let stronger = try steppedUp(
                        name, options, asking: asking, account: account,
                        said: "\(said) and wants a sign-in with \(wants)",
                        args: args)
                    {
                        token = stronger
                        StandardStreams.err(
                            "linkctl: fetch: \(said); sent again with a token of a sign-in with \(wants)\n")
                        response = try fetch.send(token.token)
                    }
                case .none(let why):
                    StandardStreams.err("linkctl: fetch: \(why); the answer is as the server gave it\n")
                }
                if [401, 403].contains(response.status), fetch.sent > 1 {
                    let again = BearerChallenge.parse(response.headers.values("WWW-Authenticate"))?.error
                    StandardStreams.err(
                        "linkctl: fetch: the server refused again (\(response.status)\(again.map { " " + $0 } ?? "")); not asked a third time\n"
                    )
                }
            }
            return answer(response, args)
        } catch let error as Unreachable {
            Output.error("fetch: \(url): \(error.text)")
            return unreachable
        } catch let error as DaemonClient.Failure {
            Output.error(error.text)
            return error.exitCode
        } catch {
            Output.error("\(error)")
            return ExitCode.refused
        }
    }

    /// How the request begins: with a token (and the options that got it), or already answered.
    enum First {
        case token(AccountToken.Reply, options: [(String, DBusValue)])
        /// Sent without a token (no metadata to find one by), and this is the answer.
        case answered(HTTPResponse)
    }

    /// What the request first goes with: the token, or, when the resource's metadata is not at its well-known place
    /// (`DiscoveryFailed` for a nameless `--for`), the answer to the request sent without one, unless that answer is
    /// a 401 whose challenge says where the metadata is (RFC 9728 §5.1): then the token found from there.
    static func firstToken(
        _ name: String, _ options: [(String, DBusValue)], url: String, probing: Bool, _ fetch: inout Fetch
    ) throws -> First {
        let attempt: Result<AccountToken.Reply, DaemonClient.Failure>
        do { attempt = .success(try AccountToken.get(name, options)) } catch { attempt = .failure(error) }
        let refusal: DaemonClient.Failure
        switch attempt {
        case .success(let token): return .token(token, options: options)
        case .failure(let error) where name.isEmpty && probing && error.code == .discoveryFailed: refusal = error
        case .failure(let error): throw error
        }
        let probe = try fetch.send(nil)
        guard probe.status == 401,
            let at = BearerChallenge.parse(probe.headers.values("WWW-Authenticate"))?.resourceMetadata,
            at != ProtectedResource.metadataURL(for: url)
        else {
            StandardStreams.err(
                "linkctl: fetch: sent without a token, since \(refusal.text); the answer is as the server gave it\n")
            return .answered(probe)
        }
        StandardStreams.err("linkctl: fetch: \(url) answered 401 naming its metadata at \(at)\n")
        let found = options + [(TokenOptionNames.resourceMetadata.1, .string(at))]
        return .token(try AccountToken.get(name, found), options: found)
    }

    /// The answer printed (its status line and headers first with `--include`), and the exit status curl would give.
    static func answer(_ response: HTTPResponse, _ args: ParsedArguments) -> Int32 {
        if args.has("include") {
            var head = "HTTP \(response.status)\n"
            for field in response.headers { head += field.name + ": " + field.value + "\n" }
            StandardStreams.out(head + "\n")
        }
        StandardStreams.write(bytes: response.body, to: 1)
        return args.has("fail") && response.status >= 400 ? httpError : ExitCode.ok
    }

    /// A token for `scope`, or nil (said on stderr) when the account's sign-in did not grant it.
    static func widened(
        _ name: String, _ options: [(String, DBusValue)], scope: String, account: String, said: String
    ) throws(DaemonClient.Failure) -> AccountToken.Reply? {
        do {
            return try AccountToken.get(name, options + [(TokenOptionNames.scope.1, .string(scope))])
        } catch  where error.code == .invalidArgument {
            StandardStreams.err(
                "linkctl: fetch: \(said) and wants the scope \"\(scope)\", beyond what \(account)'s sign-in granted: declare it (linkctl account add \(account) … --scope '\(scope)' --replace) and sign in again (linkctl login \(account))\n"
            )
            return nil
        }
    }

    /// A token from a sign-in that meets the step-up `asking` (`acr_values`, `max_age`): the account's own where its
    /// sign-in does; else, with `--interactive`, after a new sign-in asking for it; else nil, with the line that signs
    /// in so said on stderr.
    static func steppedUp(
        _ name: String, _ options: [(String, DBusValue)], asking: [(String, DBusValue)], account: String,
        said: String, args: ParsedArguments
    ) throws(DaemonClient.Failure) -> AccountToken.Reply? {
        do {
            return try AccountToken.get(name, options + asking)
        } catch  where error.code == .stepUpRequired || error.code == .notSignedIn {
            guard args.has("interactive") else {
                StandardStreams.err("linkctl: fetch: \(said): \(error.text) (or: linkctl fetch --interactive)\n")
                return nil
            }
            StandardStreams.err("linkctl: fetch: \(said): signing in to \(account) again, asking for it\n")
            try AccountToken.signIn(account, openBrowser: !args.has("no-browser"), asking: asking)
            return try AccountToken.get(name, options + asking)
        }
    }

    /// The server could not be reached, or did not answer (curl's 7).
    struct Unreachable: Error {
        let text: String
    }

    /// The request, sent on a loop of its own; how many times it was sent with a token.
    struct Fetch {
        let url: String
        let method: HTTPRequest.Method
        let headers: HTTPHeaders
        let body: [UInt8]
        var sent = 0

        /// Sent with `token`, or without one (nil: to learn where the resource's metadata is).
        mutating func send(_ token: String?) throws(Unreachable) -> HTTPResponse {
            var all = headers
            if let token {
                sent += 1
                all.add("Authorization", "Bearer " + token)
            }
            let request = HTTPRequest(
                method: method, url: url, headers: all, body: body, maxResponseBytes: FetchCommand.maxBytes,
                timeoutMilliseconds: 120_000)
            let loop = EventLoop()
            var outcome: Result<HTTPResponse, HTTPError>?
            do {
                let client = try HTTPClient(loop: loop, userAgent: "linkctl/\(API.version)")
                _ = client.send(request) { result in
                    outcome = result
                    loop.stop()
                }
                loop.run()
            } catch {
                outcome = .failure(error)
            }
            switch outcome {
            case .success(let response)?: return response
            case .failure(let error)?: throw Unreachable(text: error.description)
            case nil: throw Unreachable(text: "no answer")
            }
        }
    }
}
