import DBusKit
import LinkRouterAPI
import LinkRouterCore
import SystemKit

/// `linkctl logout NAME`: the account's tokens forgotten by the daemon and the
/// keyring (`Logout`); with `--at-provider`, then signed out at the provider
/// too, in the browser, which comes back to the account's redirect (`BeginLogout`).
enum LogoutCommand {
    static let spec = CommandSpec(
        name: "logout",
        summary: "Forget an account's tokens, in the daemon and in the keyring (the account stays declared).",
        operands: "NAME", operandCount: 1...1,
        options: [
            .flag(
                "at-provider",
                "sign out at the provider too: its end_session_endpoint in the browser, back to the account's redirect"),
            .value(
                "timeout", "MS",
                "with --at-provider: give up waiting for the way back after this many milliseconds (default: the session's ttl)"
            ),
        ] + OptionFlags.options(SessionRequest.logoutOptions),
        details: """
            Sign in again with linkctl login NAME; remove the account with linkctl account remove NAME. The tokens are revoked \
            at the provider too where its discovery offers revocation (RFC 7009), and linkctl says what the provider did: \
            where it offers no revocation (or refused it), the refresh token stays valid there until it expires. \
            With --at-provider (OpenID Connect RP-Initiated Logout), the tokens are forgotten here first, whatever the provider does; \
            then the browser goes to the provider's end_session_endpoint with the ID token, the client, a state and the account's \
            redirect_uri as post_logout_redirect_uri, and linkctl waits until the provider sends it back with that state \
            (exit 2 if the provider refused, 3 on --timeout).
            """,
        run: run)

    static func run(_ args: ParsedArguments) -> Int32 {
        let name = args.operands[0]
        do throws(RouterError) { try Account.checkName(name) } catch {
            return LinkCtl.usageFailure(spec, error.message)
        }
        guard
            args.has("at-provider")
                || (args.value("timeout") == nil && !args.has("no-browser") && args.value("browser") == nil
                    && args.value("ttl") == nil)
        else {
            return LinkCtl.usageFailure(spec, "--timeout, --no-browser, --browser and --ttl go with --at-provider")
        }
        if args.has("at-provider") { return atProvider(name, args) }
        do {
            let client = try DaemonClient.connect()
            let reply = try client.call("Logout", [.string(name)], timeoutMilliseconds: 120_000)
            var said: [String: String] = [:]
            for (key, value) in reply.first?.stringKeyedEntries ?? [] {
                if let text = (value.variantValue ?? value).stringValue { said[key] = text }
            }
            let outcome = SignOutOutcome(entries: said)
            let then = outcome.map { " " + $0.sentence.replacing("NAME", with: name) } ?? ""
            StandardStreams.err(
                "Signed out of \(name) here: its tokens are gone from the daemon and the keyring;\(then)\n")
            return ExitCode.ok
        } catch {
            Output.error(error.text)
            return error.exitCode
        }
    }

    /// `BeginLogout`, the URL shown (or opened), then `Wait` for the way back.
    static func atProvider(_ name: String, _ args: ParsedArguments) -> Int32 {
        guard let timeout = WaitCommand.parseTimeout(args.value("timeout")) else {
            return LinkCtl.usageFailure(spec, "--timeout takes milliseconds (0 to 4294967295)")
        }
        let options: [(String, DBusValue)]
        do { options = try OptionFlags.entries(SessionRequest.logoutOptions, args) } catch {
            return LinkCtl.usageFailure(spec, error.message)
        }
        do throws(DaemonClient.Failure) {
            let client = try DaemonClient.connect()
            let reply = try client.call(
                "BeginLogout", [.string(name), .vardict(options)], timeoutMilliseconds: 120_000)
            guard let path = reply.first?.objectPathValue else {
                throw .refused(name: DBusError.invalidArgs, message: "BeginLogout answered without a session")
            }
            let url = reply.count > 1 ? reply[1].stringValue ?? "" : ""
            // The daemon's one-time sign-out page (it names no token), shown when the person opens it by hand.
            if args.has("no-browser") {
                StandardStreams.err(
                    "Signed out of \(name) here. Open this URL in your browser to sign out at its provider:\n  \(url)\nWaiting for the provider to send the browser back…\n"
                )
            } else {
                StandardStreams.err(
                    "Signed out of \(name) here. The browser was opened to sign out at its provider; waiting for it to send the browser back…\n"
                )
            }
            _ = try WaitCommand.result(client, path: path, timeout: timeout)
            _ = try? client.call(path: path, interface: API.sessionInterface, "Acknowledge")
            StandardStreams.err("Signed out of \(name) at its provider too.\n")
            return ExitCode.ok
        } catch {
            Output.error(error.text)
            return error.exitCode
        }
    }
}
