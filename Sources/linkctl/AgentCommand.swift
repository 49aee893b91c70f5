import DBusKit
import LinkRouterAPI
import LinkRouterCore
import LinkRouterFiles
import SystemKit

/// `linkctl agent env|forward`: oidc-agent's clients (`oidc-token`,
/// liboidc-agent and its ports) pointed at linkrouterd's agent socket, here
/// (`env`, oidc-agent's own shell lines) and on another machine through ssh
/// (`forward`: `ssh -R` to a socket of its own, limited to the accounts named,
/// each request confirmed here).
enum AgentCommand {
    static let spec = CommandSpec(
        name: "agent",
        summary: "Point oidc-agent's clients (oidc-token, liboidc-agent) at linkrouterd, here or over ssh.",
        operands: "env | forward -- SSH-ARGUMENT…", operandCount: 1...Int.max,
        options: OptionFlags.options(AgentForward.options).filter { $0.name != "host" } + [
            .value("host", "HOST", "the far host's name in prompts (default: the host ssh -G names)"),
            .value("remote-socket", "PATH", "the socket's path on the far host (default /tmp/linkrouter-agent-RANDOM)"),
        ],
        details: """
            env      print OIDC_SOCK=PATH; export OIDC_SOCK; for eval "$(linkctl agent env)": oidc-token NAME and
                     programs on liboidc-agent then ask linkrouterd for NAME's token, as they ask oidc-agent
            forward  run ssh with the arguments after --, the agent forwarded to the far host (ssh -R) through a
                     socket of its own: only the --account accounts, at most --scope and --audience, each request
                     confirmed by a notification here (--allow-unconfirmed: not asked); it closes when ssh exits.
                     On the far host OIDC_SOCK names it where sshd accepts it (AcceptEnv OIDC_SOCK), else set it
                     to the path printed. Anyone root on the far host can use it while it is open.

            """, run: run)

    static func run(_ args: ParsedArguments) -> Int32 {
        switch args.operands[0] {
        case "env":
            guard args.operands.count == 1 else { return LinkCtl.usageFailure(spec, "env takes no arguments") }
            return env()
        case "forward":
            guard args.operands.count > 1 else {
                return LinkCtl.usageFailure(spec, "forward needs ssh's arguments after --, its destination among them")
            }
            return forward(args, ssh: Array(args.operands.dropFirst()))
        default:
            return LinkCtl.usageFailure(spec, "unknown subcommand \(args.operands[0]) (env or forward)")
        }
    }

    private static func env() -> Int32 {
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

    /// The forward asked of the daemon (kept while this process's bus connection lasts), then ssh run with it.
    private static func forward(_ args: ParsedArguments, ssh: [String]) -> Int32 {
        guard let sshPath = FileSystem.findExecutable("ssh") else {
            Output.error("ssh is not installed (Debian: openssh-client)")
            return ExitCode.unavailable
        }
        var options: [(String, DBusValue)]
        do { options = try OptionFlags.entries(AgentForward.options, args) } catch {
            return LinkCtl.usageFailure(spec, error.message)
        }
        guard let host = args.value("host") ?? destination(ssh: sshPath, ssh) else {
            Output.error("ssh -G could not say which host these arguments reach; name it with --host HOST")
            return ExitCode.usage
        }
        options.removeAll { $0.0 == "host" }
        options.append(("host", .string(host)))
        let remote = args.value("remote-socket") ?? "/tmp/linkrouter-agent-" + OptionFlags.randomToken().prefix(12)
        let client: DaemonClient
        let local: String
        do {
            client = try DaemonClient.connect()
            guard case .string(let path)? = try client.call("ForwardAgent", [.vardict(options)]).first else {
                Output.error("linkrouterd answered ForwardAgent with no socket")
                return ExitCode.refused
            }
            local = path
        } catch {
            Output.error(error.text)
            return error.exitCode
        }
        Output.error(
            "the agent is forwarded to \(host) for \(args.all("account").joined(separator: ", ")) until ssh exits; on \(host), OIDC_SOCK=\(remote)"
        )
        let argv =
            [
                sshPath, "-o", "ExitOnForwardFailure=yes", "-o", "StreamLocalBindUnlink=yes", "-o",
                "SetEnv=OIDC_SOCK=" + remote, "-R", remote + ":" + local,
            ] + ssh
        let status: Int32
        do {
            let pid = try Subprocess.spawn(argv, stdin: .inherit)
            status = Subprocess.wait(pid)
        } catch {
            Output.error("ssh could not be started: \(error)")
            return ExitCode.unavailable
        }
        // The forward closes when this connection leaves the bus, which is now.
        withExtendedLifetime(client) {}
        return status
    }

    /// The host `ssh ARGS` connects to, as ssh's own configuration names it (`ssh -G`: its `host` line).
    private static func destination(ssh: String, _ args: [String]) -> String? {
        guard let r = try? Subprocess.run([ssh, "-G"] + args, timeoutMilliseconds: 10_000), r.status == 0 else {
            return nil
        }
        for line in r.text.split(separator: "\n") where line.hasPrefix("host ") {
            return String(line.dropFirst(5))
        }
        return nil
    }

    /// `s` as one shell word: as it is when it needs no quoting, else in single quotes.
    static func shellWord(_ s: String) -> String {
        let plain = s.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                || "/._-+:@%,".utf8.contains(b)
        }
        return plain
            ? s : "'" + s.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}
