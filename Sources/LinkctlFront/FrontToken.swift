/// `linkctl token NAME [--min-valid SECONDS]` as the full linkctl's
/// `TokenCommand` answers it: the token alone on stdout (for
/// `Authorization: Bearer $(linkctl token NAME)`), the daemon's warnings on
/// stderr, a refusal in the same words with the same exit status. Every other
/// form of `token` (`--json`, `--dpop`, `--issuer`, `refresh`, …) goes to the
/// full linkctl.
enum FrontToken {
    struct Request {
        var name: String
        var minValid: UInt32?
    }

    /// The request from `token`'s arguments, or nil for any form the front does not serve.
    static func request(_ arguments: ArraySlice<String>) -> Request? {
        var name: String?
        var minValid: UInt32?
        var rest = arguments[...]
        let flag = "--" + TokenOptionNames.minValidFlag
        while let argument = rest.popFirst() {
            var value: String?
            if argument == flag {
                value = rest.popFirst()
                guard value != nil else { return nil }
            } else if argument.hasPrefix(flag + "=") {
                value = String(argument.dropFirst(flag.count + 1))
            } else if name == nil, let first = argument.utf8.first, first != 0x2D, argument != "refresh" {
                name = argument
                continue
            } else {
                return nil
            }
            // Parsed as the full linkctl parses it (`UInt32(text)`); anything else is its to refuse, and once only.
            guard minValid == nil, let text = value, let n = UInt32(text) else { return nil }
            minValid = n
        }
        guard let name else { return nil }
        return Request(name: name, minValid: minValid)
    }

    static func run(_ request: Request, _ process: FrontProcess) -> Int32 {
        guard let bus = FrontBus.connect() else { process.handOver() }
        var options: [(String, FrontBus.Option)] = []
        if let n = request.minValid { options.append((TokenOptionNames.minValidKey, .uint32(n))) }
        // A refresh, or an unlock prompt the keyring shows, can take a while (as `AccountToken.get` waits).
        switch bus.call("GetToken", [.string(request.name), .options(options)], timeoutMilliseconds: 120_000) {
        case .reply(let reply):
            guard let token = reply.entry("token"), !token.isEmpty else {
                FrontProcess.err(
                    "linkctl: "
                        + RefusalText.text(
                            name: "org.freedesktop.DBus.Error.Failed",
                            message: "the daemon answered GetToken without a token") + "\n")
                return ExitCode.refused
            }
            if BearerWarning.isBound(tokenType: reply.entry("token_type")) {
                FrontProcess.err(BearerWarning.text(account: request.name))
            }
            if let warning = reply.entry("warning") { FrontProcess.err("linkctl: warning: " + warning + "\n") }
            FrontProcess.out(token + "\n")
            return ExitCode.ok
        case .refused(let name, let message):
            FrontProcess.err("linkctl: " + RefusalText.text(name: name, message: message) + "\n")
            return ExitCode.forRefusal(name)
        case .unreachable(let detail):
            FrontProcess.err("linkctl: " + DaemonReachability.unreachable(detail) + "\n")
            return ExitCode.unavailable
        }
    }
}
