import SystemKit

/// `linkctl completion bash|zsh|fish`: a completion script made from the
/// verb table (each verb, its options, and the words its operands list), so
/// completion cannot offer what linkctl does not take. The package installs
/// all three; a user without the package sources `linkctl completion bash`.
enum CompletionCommand {
    static let spec = CommandSpec(
        name: "completion", summary: "Print the shell completion script for bash, zsh or fish.",
        operands: "bash|zsh|fish", operandCount: 1...1, options: [],
        details: """
            bash: `source <(linkctl completion bash)`; zsh: put `linkctl completion zsh` in a file `_linkctl` on \
            $fpath; fish: `linkctl completion fish > ~/.config/fish/completions/linkctl.fish`. The package installs \
            all three in the shells' system directories.
            """,
        run: run)

    static func run(_ args: ParsedArguments) -> Int32 {
        let verbs = LinkCtl.commands.map(Verb.init)
        switch args.operands[0] {
        case "bash": StandardStreams.out(bash(verbs))
        case "zsh": StandardStreams.out(zsh(verbs))
        case "fish": StandardStreams.out(fish(verbs))
        default: return LinkCtl.usageFailure(spec, "completion takes bash, zsh or fish, not \(args.operands[0])")
        }
        return ExitCode.ok
    }

    /// What a shell completes for one verb.
    struct Verb {
        let name: String
        let summary: String
        /// `--name`, with the option's help.
        let options: [(flag: String, help: String)]
        /// Literal words among the operands (`add|remove NAME` → add, remove): lower-case words, not placeholders.
        let words: [String]

        init(_ c: CommandSpec) {
            name = c.name
            summary = c.summary
            options = (c.options + [.flag("help", "show this help and exit")]).map { ("--" + $0.name, $0.help) }
            words = c.operands.split(whereSeparator: { " |[]".contains($0) }).map(String.init).filter { w in
                w.allSatisfy { $0.isLowercase || $0 == "-" }
            }
        }
    }

    static func bash(_ verbs: [Verb]) -> String {
        var out = """
            # bash completion for linkctl (made by `linkctl completion bash`)
            _linkctl() {
                local cur=${COMP_WORDS[COMP_CWORD]}
                if [ "$COMP_CWORD" -eq 1 ]; then
                    COMPREPLY=($(compgen -W '\(verbs.map(\.name).joined(separator: " ")) --help --version' -- "$cur"))
                    return
                fi
                local words
                case "${COMP_WORDS[1]}" in

            """
        for v in verbs {
            out += "        \(v.name)) words='\((v.options.map(\.flag) + v.words).joined(separator: " "))' ;;\n"
        }
        out += """
                    *) return ;;
                esac
                COMPREPLY=($(compgen -W "$words" -- "$cur"))
            }
            complete -o default -F _linkctl linkctl

            """
        return out
    }

    static func zsh(_ verbs: [Verb]) -> String {
        func quoted(_ s: String) -> String { "'" + s.replacing("'", with: "'\\''") + "'" }
        func described(_ word: String, _ help: String) -> String {
            quoted(word.replacing(":", with: "\\:") + ":" + help)
        }
        var out = """
            #compdef linkctl
            # zsh completion for linkctl (made by `linkctl completion zsh`)
            _linkctl() {
                local -a verbs options
                verbs=(\(verbs.map { described($0.name, $0.summary) }.joined(separator: " ")))
                if (( CURRENT == 2 )); then
                    _describe -t commands 'linkctl command' verbs
                    return
                fi
                case $words[2] in

            """
        for v in verbs {
            let items = v.options.map { described($0.flag, $0.help) } + v.words.map { described($0, $0) }
            out += "        \(v.name)) options=(\(items.joined(separator: " "))) ;;\n"
        }
        out += """
                    *) return 1 ;;
                esac
                _describe -t options "linkctl $words[2]" options
            }
            _linkctl "$@"

            """
        return out
    }

    static func fish(_ verbs: [Verb]) -> String {
        func quoted(_ s: String) -> String { "'" + s.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'" }
        var out = "# fish completion for linkctl (made by `linkctl completion fish`)\ncomplete -c linkctl -f\n"
        for v in verbs {
            out += "complete -c linkctl -n __fish_use_subcommand -a \(v.name) -d \(quoted(v.summary))\n"
        }
        for v in verbs {
            let when = quoted("__fish_seen_subcommand_from " + v.name)
            for o in v.options {
                out += "complete -c linkctl -n \(when) -l \(o.flag.dropFirst(2)) -d \(quoted(o.help))\n"
            }
            if !v.words.isEmpty {
                out += "complete -c linkctl -n \(when) -a \(quoted(v.words.joined(separator: " ")))\n"
            }
        }
        return out
    }
}
