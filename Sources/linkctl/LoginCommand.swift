import DBusKit
import LinkRouterAPI
import LinkRouterCore
import SystemKit
import TerminalQR

/// `linkctl login`: begin and wait in one process, the common case for
/// scripts and CLIs (like `gh auth login`, for any provider).
enum LoginCommand {
    static let spec = CommandSpec(
        name: "login", summary: "Begin a session, open the browser, wait for the callback and print the result.",
        operands: "[NAME]", operandCount: 0...1,
        options: OptionFlags.options(SessionRequest.options) + [
            .value("timeout", "MS", "give up after this many milliseconds (default: the session's ttl)"),
            .flag("json", "print JSON (with tokens: the token response and the verified ID-token claims)"),
            .flag("code-only", "with --issuer: stop at the code and verifier; do not exchange them"),
            .flag("show-tokens", "print the tokens too (plain output shows only who signed in and the expiry)"),
            .flag(
                "device",
                "sign in on another device (RFC 8628): print a code and a page to enter it at, then wait; no browser here"
            ),
            .flag(
                "qr",
                "with a device login: draw the page as a QR code even when stderr is not a terminal (it is drawn on one)"
            ),
        ],
        details: """
            With an account's NAME (linkctl account add), the account gives the provider options and its tokens \
            are kept for linkctl token NAME. With --issuer and no --authorization-endpoint, the daemon fetches the issuer's metadata, and after the \
            callback exchanges the code and verifies the ID token (--code-only stops at the code). The result goes \
            to stdout; what is happening goes to stderr. Exit status 2 when the login ended without a code or tokens \
            (the provider refused, an ID token failed a check, expiry), 3 on --timeout. \
            --device (or, with neither --no-browser nor --browser, a machine with no display or an SSH session, where \
            the provider offers it) signs in with the device grant: a code to enter at the provider's page on a phone \
            or another computer; elsewhere, or where the provider offers no device grant, the authorize URL is printed to open elsewhere.
            """,
        run: run)

    static func run(_ args: ParsedArguments) -> Int32 {
        if args.has("code-only") && args.has("exchange") {
            return LinkCtl.usageFailure(spec, "--code-only and --exchange contradict each other")
        }
        var entries: [(String, DBusValue)]
        do { entries = try OptionFlags.entries(SessionRequest.options, args) } catch {
            return LinkCtl.usageFailure(spec, error.message)
        }
        entries += SystemEnvironment.activationOptions(besides: entries)
        if let name = args.operands.first {
            guard args.value("account") == nil else {
                return LinkCtl.usageFailure(spec, "give the account once: login NAME, or --account NAME")
            }
            entries.append(("account", .string(name)))
        }
        // The options as the daemon reads them, for the core's rules below (the daemon checks them again).
        let request = try? OptionsDecoder.session(.vardict(entries))
        // The whole login by default when the issuer says where everything is (the core's rule).
        if let request, SessionPlan.exchangesByDefault(request), !args.has("code-only"), !args.has("exchange") {
            entries.append(("exchange", .boolean(true)))
        }
        guard let timeout = WaitCommand.parseTimeout(args.value("timeout")) else {
            return LinkCtl.usageFailure(spec, "--timeout takes milliseconds (0 to 4294967295)")
        }
        // No browser here: the device grant when asked for, or (where the provider offers it) when nothing could open
        // one.
        let asked = args.has("device")
        if asked && (args.has("no-browser") || args.value("browser") != nil || args.has("code-only")) {
            return LinkCtl.usageFailure(
                spec,
                "--device opens nothing here and ends with tokens; leave out --no-browser, --browser and --code-only")
        }
        // By itself only for a login a device grant can be: the provider's (or an account's), nothing of a browser's
        // (the core's list, and a redirect URI of the caller's own), and not stopping at the code.
        let deviceShaped =
            request.map {
                ($0.issuer != nil || $0.account != nil) && $0.browserOnlyOption == nil && $0.redirectURI == nil
            } ?? false && !args.has("code-only")
        var handOff = false
        if asked || (deviceShaped && !args.has("no-browser") && SystemEnvironment.noBrowserHere) {
            switch deviceLogin(
                entries, timeout: timeout, json: args.json, showTokens: args.has("show-tokens"),
                qr: args.has("qr") || StandardStreams.errIsTerminal)
            {
            case .done(let status): return signedIn(status, args)
            case .refused(let failure):
                // Asked for: the refusal is the answer. Chosen by itself: any refusal before a session exists means the
                // URL to open elsewhere.
                if asked {
                    Output.error(failure.text)
                    return failure.exitCode
                }
                handOff = true
            }
        }
        if handOff { entries.append(("open_browser", .boolean(false))) }
        do throws(DaemonClient.Failure) {
            let client = try DaemonClient.connect()
            let (reply, opened) = try BrowserSignIn.begin(client, entries)
            guard let path = reply.first?.objectPathValue else {
                throw .refused(name: DBusError.invalidArgs, message: "BeginSession answered without a session")
            }
            let url = reply.count > 1 ? reply[1].stringValue ?? "" : ""
            if !opened {
                StandardStreams.err("Open this URL in your browser to sign in:\n  \(url)\nWaiting for the callback…\n")
            } else {
                // The hand-off to a browser can fail without a word (gh and az print the URL too).
                StandardStreams.err(
                    "Opened the browser to sign in; if it did not appear, open:\n  \(url)\nWaiting for the callback (\(path))…\n"
                )
            }
            return signedIn(
                try WaitCommand.waitAndPrint(
                    client, path: path, timeout: timeout, json: args.json, showTokens: args.has("show-tokens")), args)
        } catch {
            Output.error(timedOut(error, timeout) ?? error.text)
            return error.exitCode
        }
    }

    /// `--timeout` ran out: the session was this linkctl's, and the daemon ends it when linkctl goes, so it cannot be
    /// waited for again (as `linkctl wait`'s message says of a session someone else owns).
    static func timedOut(_ error: DaemonClient.Failure, _ timeout: UInt32) -> String? {
        guard error.code == .timeout else { return nil }
        return
            "no sign-in within \(timeout) ms; the login ends with this linkctl (run linkctl login again to start over) (Timeout)"
    }

    /// A sign-in to an account whose tokens live in the daemon's memory only says so (issue 34: nothing vanishes
    /// without a word to the person).
    static func signedIn(_ status: Int32, _ args: ParsedArguments) -> Int32 {
        if status == ExitCode.ok, let name = args.operands.first ?? args.value("account"),
            let note = AccountToken.memoryOnlyNote(name)
        {
            StandardStreams.err("Note: \(note).\n")
        }
        return status
    }

    enum DeviceOutcome {
        case done(Int32)
        /// `BeginDeviceLogin` refused it: no session was made.
        case refused(DaemonClient.Failure)
    }

    /// `BeginDeviceLogin`, the code and page shown on stderr, then `Wait`.
    static func deviceLogin(_ entries: [(String, DBusValue)], timeout: UInt32, json: Bool, showTokens: Bool, qr: Bool)
        -> DeviceOutcome
    {
        let begun: (client: DaemonClient, path: ObjectPath)
        do throws(DaemonClient.Failure) { begun = try deviceBegin(entries, qr: qr) } catch {
            if case .refused = error { return .refused(error) }
            Output.error(error.text)
            return .done(error.exitCode)
        }
        do throws(DaemonClient.Failure) {
            return .done(
                try WaitCommand.waitAndPrint(
                    begun.client, path: begun.path, timeout: timeout, json: json, showTokens: showTokens))
        } catch {
            Output.error(timedOut(error, timeout) ?? error.text)
            return .done(error.exitCode)
        }
    }

    /// The device grant's first half: `BeginDeviceLogin`, and the code and page shown on stderr (with a QR code when
    /// `qr`). Its refusal (no device grant at this provider, say) is thrown as `.refused`; no session was made then.
    static func deviceBegin(_ entries: [(String, DBusValue)], qr: Bool) throws(DaemonClient.Failure) -> (
        DaemonClient, ObjectPath
    ) {
        // The options of a login that opens a browser mean nothing here.
        let options = DBusValue.vardict(entries.filter { !["exchange", "open_browser"].contains($0.0) })
        let client = try DaemonClient.connect()
        let reply = try client.call("BeginDeviceLogin", [options])
        guard let path = reply.first?.objectPathValue, reply.count > 1 else {
            throw .refused(name: DBusError.invalidArgs, message: "BeginDeviceLogin answered without a session")
        }
        var prompt: [String: DBusValue] = [:]
        for (key, value) in reply[1].stringKeyedEntries ?? [] { prompt[key] = value.variantValue }
        let page = prompt["verification_uri"]?.stringValue ?? ""
        let code = prompt["user_code"]?.stringValue ?? ""
        var text =
            "To sign in, open this page on a phone or another computer:\n  \(page)\nand enter the code:\n  \(code)\n"
        if let complete = prompt["verification_uri_complete"]?.stringValue {
            text += "(or open \(complete), which has the code in it)\n"
            // For a phone's camera: the page with the code in it.
            if qr, let code = try? QRCode(complete) { text += code.terminalText }
        }
        if case .int64(let expiresAt)? = prompt["expires_at"] {
            text +=
                "The code works for \(max(0, expiresAt - Clock.unixSeconds()) / 60) minutes. Waiting for the sign-in…\n"
        }
        StandardStreams.err(text)
        return (client, path)
    }
}
