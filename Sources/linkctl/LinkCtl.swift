import DesktopIntegration
import LinkRouterAPI
import LinkRouterCore
import SystemKit

/// linkctl's verb table (hostnamectl's shape): each verb declares itself in a
/// `CommandSpec`; this file only finds the verb and handles global help.
enum LinkCtl {
    static var commands: [CommandSpec] { verbs.map { $0.spec() } }

    /// The verbs by name, each spec made only when asked for: `open` runs on
    /// every click and should not build `login`'s forty options first.
    static let verbs: [(name: String, spec: @Sendable () -> CommandSpec)] = [
        ("open", { OpenCommand.spec }), ("begin", { BeginCommand.spec }), ("wait", { WaitCommand.spec }),
        ("login", { LoginCommand.spec }), ("token", { TokenCommand.spec }), ("fetch", { FetchCommand.spec }),
        ("account", { AccountCommand.spec }),
        ("accounts", { AccountsCommand.spec }), ("credential", { CredentialCommand.spec }),
        ("agent", { AgentCommand.spec }),
        ("logout", { LogoutCommand.spec }), ("grants", { GrantsCommand.spec }),
        ("sessions", { SessionsCommand.spec }),
        ("cancel", { CancelCommand.spec }),
        ("status", { StatusCommand.spec }), ("explain", { ExplainCommand.spec }),
        ("register", { RegisterCommand.spec }), ("claim", { ClaimCommand.spec }),
        ("install", { InstallCommand.spec }), ("uninstall", { UninstallCommand.spec }),
        ("browser-policy", { BrowserPolicyCommand.spec }),
        ("doctor", { DoctorCommand.spec }),
        ("completion", { CompletionCommand.spec }),
    ]

    static func command(_ name: String) -> CommandSpec? { verbs.first { $0.name == name }?.spec() }

    static var help: String {
        let commands = self.commands
        let width = commands.map(\.name.count).max() ?? 0
        var out = """
            Usage: linkctl COMMAND [OPTION…] [ARG…]

            Control linkrouter, the deep-link router for login callbacks on the Linux desktop.

            Commands:

            """
        for c in commands {
            out += "  " + c.name + String(repeating: " ", count: width - c.name.count + 2) + c.summary + "\n"
        }
        out += """

            Global options:
              --help      show this help (or `linkctl COMMAND --help` for one command)
              --version   print the version

            Exit status: 0 success; 1 refused by the daemon or a failed check; 2 the login ended
            without a code; 3 timeout; 4 the account is not signed in; 5 the keyring is locked or
            missing; 64 usage error; 69 no daemon reachable; 73 a file could not be written.

            """
        return out
    }

    /// git's name for the helper `credential.helper = linkrouter` names (a symlink to linkctl on `PATH`).
    static let gitHelperName = LinkctlLayout.gitHelperName

    static func main(_ argv: [String]) -> Int32 {
        let args = Array(argv.dropFirst())
        // Run by another name: docker's credential helper, or git's (symlinks to linkctl).
        if let program = argv.first, program == DockerCredential.name || program.hasSuffix("/" + DockerCredential.name)
        {
            return DockerCredential.main(args)
        }
        if let program = argv.first, program == gitHelperName || program.hasSuffix("/" + gitHelperName) {
            // `credential.helper = linkrouter [--account NAME]`: git runs `git-credential-linkrouter [OPTIONS] get`
            // itself, no shell between; the same as `linkctl credential git [OPTIONS] get`.
            return main(["linkctl", "credential", "git"] + args)
        }
        guard let verb = args.first else {
            StandardStreams.err(help)
            return ExitCode.usage
        }
        switch verb {
        case "--help", "-h", "help":
            if verb == "help", args.count > 1, let c = command(args[1]) {
                StandardStreams.out(c.help)
            } else {
                StandardStreams.out(help)
            }
            return ExitCode.ok
        case "--version":
            StandardStreams.out("linkctl \(API.version)\n")
            return ExitCode.ok
        default:
            break
        }
        // By index, not through `command(_:)`: an optional `CommandSpec` costs
        // its generic metadata at run time (~30 k instructions on every click).
        guard let index = verbs.firstIndex(where: { $0.name == verb }) else {
            Output.error("unknown command \"\(verb)\"")
            StandardStreams.err("Try 'linkctl --help'.\n")
            return ExitCode.usage
        }
        let command = verbs[index].spec()
        let rest = Array(args.dropFirst())
        // `--help` before any `--` asks for help; after `--` it is an operand (so `open -- --help` is refused).
        if let dash = rest.firstIndex(of: "--") ?? Optional(rest.endIndex), rest[..<dash].contains("--help") {
            StandardStreams.out(command.help)
            return ExitCode.ok
        }
        do { return command.run(try command.parse(rest)) } catch {
            return usageFailure(command, error.message)
        }
    }

    static func usageFailure(_ command: CommandSpec, _ message: String) -> Int32 {
        Output.error(message)
        StandardStreams.err("Usage: \(command.usage)\nTry 'linkctl \(command.name) --help'.\n")
        return ExitCode.usage
    }

    /// The installation this linkctl belongs to: the directory of the front
    /// `linkctl` that handed this process its verb (`LinkctlLayout`).
    static func installation() -> Installation {
        let exe = FileSystem.resolve(FileSystem.executablePath()) ?? FileSystem.executablePath()
        return Installation(binDirectory: LinkctlLayout.frontDirectory(fullDirectory: FileSystem.directoryName(exe)))
    }
}
