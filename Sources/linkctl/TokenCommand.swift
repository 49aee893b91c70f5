import DBusKit
import LinkRouterAPI
import LinkRouterCore
import SystemKit

/// `linkctl token refresh`: new tokens for a refresh token, through the
/// daemon (`RefreshTokens`), with the same checks on a new ID token as a login.
enum TokenCommand {
    static let spec = CommandSpec(
        name: "token", summary: "Get new tokens for a refresh token (`token refresh`), with the checks of a login.",
        operands: "refresh", operandCount: 1...1,
        options: OptionFlags.options(RefreshRequest.options) + [
            .flag("json", "print JSON (the token response and the verified ID-token claims)"),
            .flag("show-tokens", "print the tokens too"),
        ],
        details: "Exit status 2 when the provider refused the refresh token or the new ID token failed a check.",
        run: run)

    static func run(_ args: ParsedArguments) -> Int32 {
        guard args.operands[0] == "refresh" else { return LinkCtl.usageFailure(spec, "the only token command is refresh") }
        guard args.value("issuer") != nil, args.value("client-id") != nil, var token = args.value("refresh-token") else {
            return LinkCtl.usageFailure(spec, "give --issuer, --client-id and --refresh-token")
        }
        if token == "-" {
            token = String(decoding: StandardStreams.readAll(maxBytes: 16 * 1024), as: UTF8.self)
            while let last = token.last, last == "\n" || last == "\r" || last == " " { token.removeLast() }
        }
        let options: DBusValue
        do { options = .vardict(try OptionFlags.entries(RefreshRequest.options, args, override: ["refresh_token": token])) } catch {
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
}
