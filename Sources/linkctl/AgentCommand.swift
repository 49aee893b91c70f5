import LinkRouterFiles
import SystemKit

/// `linkctl agent env`: the shell lines that point oidc-agent's clients
/// (`oidc-token`, liboidc-agent and its ports) at linkrouterd's agent socket,
/// in oidc-agent's own form, for `eval "$(linkctl agent env)"`.
enum AgentCommand {
    static let spec = CommandSpec(
        name: "agent", summary: "Point oidc-agent's clients (oidc-token, liboidc-agent) at linkrouterd.",
        operands: "env", operandCount: 1...1, options: [],
        details: """
            env   print OIDC_SOCK=PATH; export OIDC_SOCK; for eval "$(linkctl agent env)": oidc-token NAME and
                  programs on liboidc-agent then ask linkrouterd for NAME's token, as they ask oidc-agent

            """, run: run)

    static func run(_ args: ParsedArguments) -> Int32 {
        guard args.operands[0] == "env" else {
            return LinkCtl.usageFailure(spec, "unknown subcommand \(args.operands[0])")
        }
        guard let path = LinkRouterPaths().agentSocket else {
            Output.error(
                "XDG_RUNTIME_DIR is not set, so there is no agent socket (it is $XDG_RUNTIME_DIR/linkrouter/agent)")
            return ExitCode.unavailable
        }
        if FileSystem.status(path)?.kind != .socket {
            Output.error(
                "warning: nothing listens at \(path) yet; linkrouterd makes it when it starts (linkctl status starts it)"
            )
        }
        StandardStreams.out("OIDC_SOCK=\(shellWord(path)); export OIDC_SOCK;\n")
        return ExitCode.ok
    }

    /// `path` as one shell word: as it is when it needs no quoting, else in single quotes.
    static func shellWord(_ s: String) -> String {
        let plain = s.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                || "/._-+:@%,".utf8.contains(b)
        }
        return plain
            ? s : "'" + s.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}
