import DBusKit
import LinkRouterAPI
import LinkRouterCore
import LinkRouterFiles
import SystemKit

/// `linkctl account add NAME …` and `linkctl account remove NAME`: the
/// user's accounts, one key file each under `$XDG_CONFIG_HOME/linkrouter/accounts/`
/// (`AccountFiles`), checked by the same rules the daemon reads them with.
enum AccountCommand {
    static let spec = CommandSpec(
        name: "account",
        summary:
            "Declare an account (`account add NAME --issuer … --client-id …`) or remove one (`account remove NAME`).",
        operands: "add|remove NAME", operandCount: 2...2,
        options: OptionFlags.options(AccountRequest.options) + [
            .flag("replace", "with add: replace an account of that name")
        ],
        details: """
            An account is a provider and a client whose tokens linkrouter keeps: `linkctl login NAME` signs in once, \
            `linkctl token NAME` prints a fresh access token from then on. Removing an account removes its declaration \
            and forgets its tokens (revoked at the provider where it offers that); with no daemon to ask, only the \
            declaration goes.
            """,
        run: run)

    static func run(_ args: ParsedArguments) -> Int32 {
        let name = args.operands[1]
        do throws(RouterError) { try Account.checkName(name) } catch {
            return LinkCtl.usageFailure(spec, error.message)
        }
        guard let directory = LinkRouterPaths().accountsDirectory else {
            return LinkCtl.usageFailure(spec, "no configuration directory")
        }
        let path = AccountFiles.path(of: name, in: directory)
        switch args.operands[0] {
        case "add":
            let request: AccountRequest
            var entries: [(String, DBusValue)]
            do {
                entries = try OptionFlags.entries(AccountRequest.options, args)
                request = try OptionsDecoder.decode(.vardict(entries), AccountRequest.options, into: AccountRequest())
            } catch let e as UsageError {
                return LinkCtl.usageFailure(spec, e.message)
            } catch {
                return LinkCtl.usageFailure(spec, "\(error)")
            }
            // The two a declaration cannot do without, said as the flags they are (a usage error, 64).
            if request.issuer == nil && request.forResource == nil {
                return LinkCtl.usageFailure(
                    spec, "give --issuer URL: the OpenID provider's issuer (its discovery gives the endpoints)")
            }
            if FileSystem.status(path) != nil && !args.has("replace") {
                Output.error("account \(name) exists (\(path)); give --replace to change it")
                return ExitCode.refused
            }
            if request.clientID == nil || request.forResource != nil {
                return declaredByDaemon(name, entries: &entries, request)
            }
            let account: Account
            do throws(RouterError) { account = try Account.make(name: name, request, owner: .user) } catch {
                Output.error(error.message)
                return ExitCode.refused
            }
            let replaced = AccountFiles.read(directory: directory, owner: .user).accounts.first { $0.name == name }
            do { try AccountFiles.write(account, directory: directory) } catch {
                Output.error("could not write \(path): \(error)")
                return ExitCode.cantCreate
            }
            if let replaced, replaced.issuer == account.issuer, replaced.clientID == account.clientID {
                // The tokens are keyed by name and issuer, and were issued to the same client: a sign-in stands.
                StandardStreams.err(
                    "Replaced account \(name) (\(path)); the same issuer and client, so a sign-in it has stays\n")
            } else {
                let what = replaced == nil ? "Added" : "Replaced"
                let why = replaced == nil ? "" : " (its issuer or client changed, so tokens kept for it no longer fit)"
                StandardStreams.err(
                    "\(what) account \(name) (\(path)); sign in with: linkctl login \(name)\(why)\n"
                        + "The issuer's discovery document was not fetched: the first sign-in checks \(account.issuer).\n"
                )
            }
            // One default per issuer: the user's others there are declared again without it.
            if account.isDefault {
                for other in account.defaultsItClears(
                    among: AccountFiles.read(directory: directory, owner: .user).accounts)
                {
                    do { try AccountFiles.write(other, directory: directory) } catch {
                        Output.error("could not clear default on \(other.name): \(error)")
                        return ExitCode.cantCreate
                    }
                    StandardStreams.err("\(other.name) is no longer the default at \(account.issuer)\n")
                }
            }
            if account.store == .memory { StandardStreams.err("Note: \(AccountToken.memoryOnly(name)).\n") }
            return ExitCode.ok
        case "remove":
            // The daemon removes it (`RemoveAccount`): the file, then the tokens, kept and at the provider.
            do {
                let client = try DaemonClient.connect()
                _ = try client.call("RemoveAccount", [.string(name)], timeoutMilliseconds: 120_000)
                StandardStreams.err("Removed account \(name); its tokens are forgotten\n")
                return ExitCode.ok
            } catch {
                switch error.code {
                case .keyringLocked?, .noKeyring?, .keyringFailed?, .registrationFailed?:
                    // The declaration is gone; the keyring could not forget the tokens, or the provider its client.
                    StandardStreams.err("Removed account \(name)\n")
                    Output.error("warning: \(error.text)")
                    return ExitCode.ok
                case nil, .accessDenied?:
                    // No daemon, or an administrator's account of that name hides the user's: the user's file goes.
                    break
                default:
                    Output.error(error.text)
                    return error.exitCode
                }
            }
            guard FileSystem.status(path) != nil else {
                Output.error(
                    "there is no account \(name) of yours (\(path)); an administrator's accounts are in \(LinkRouterPaths.defaultSystemAccountsDirectory)"
                )
                return ExitCode.refused
            }
            do { try FileSystem.remove(path) } catch {
                Output.error("could not remove \(path): \(error)")
                return ExitCode.cantCreate
            }
            // Its grants go with it, as the daemon removes them (issue 44): a later account of that name is not the
            // one the person allowed.
            if let grants = LinkRouterPaths().grantsFile {
                do throws(SystemError) { try GrantsFile.change(grants) { $0.filter { $0.account != name } } } catch {
                    Output.error("warning: \(name)'s grants could not be removed from \(grants): \(error)")
                }
            }
            StandardStreams.err(
                "Removed account \(name) (\(path)); tokens kept for it stay in the keyring until linkctl login replaces them\n"
            )
            return ExitCode.ok
        default:
            return LinkCtl.usageFailure(spec, "account takes add or remove, not \(args.operands[0])")
        }
    }

    /// `account add NAME --issuer URL` with no `--client-id`, or `account add NAME --for URL`: the daemon registers a
    /// client at the provider (RFC 7591), or reads the resource's metadata (RFC 9728), and declares the account
    /// (`AddAccount`); what it declared is said from `ListAccounts`. `--registration-token -` reads the initial
    /// access token from stdin (never argv, which other users can read).
    private static func declaredByDaemon(
        _ name: String, entries: inout [(String, DBusValue)], _ request: AccountRequest
    )
        -> Int32
    {
        if let token = request.registrationToken {
            guard token == "-" else {
                return LinkCtl.usageFailure(
                    spec,
                    "give --registration-token - and the token on stdin: on the command line other users can read it")
            }
            let read = String(decoding: StandardStreams.readAll(maxBytes: 4097), as: UTF8.self)
            let text = read.hasSuffix("\n") ? String(read.dropLast()) : read
            guard !text.isEmpty, text.utf8.count <= 4096, !text.contains("\n") else {
                return LinkCtl.usageFailure(
                    spec, "--registration-token - reads one line of at most 4096 bytes from stdin")
            }
            entries = entries.map { $0.0 == "registration_token" ? ($0.0, .string(text)) : $0 }
        }
        do {
            let client = try DaemonClient.connect()
            // Discovery, a free port, the registration and the keyring: each within its own limit (15 s, 10 s).
            _ = try client.call("AddAccount", [.string(name), .vardict(entries)], timeoutMilliseconds: 120_000)
            let listed = try client.call("ListAccounts", timeoutMilliseconds: 120_000)
            let mine: DBusValue? = {
                guard case .array(_, let items)? = listed.first else { return nil }
                return items.first {
                    $0.entry("name")?.plainText == name && $0.entry("owner")?.plainText == "user"
                }
            }()
            let id = mine?.entry("client_id")?.plainText ?? "?"
            let called = mine?.entry("client_name")?.plainText.map { " (\"\($0)\")" } ?? ""
            let issuer = mine?.entry("issuer")?.plainText ?? request.issuer ?? ""
            let registered = mine?.entry("registered")?.plainText != nil
            let what =
                registered
                ? "Registered client \(id)\(called) at \(issuer) and added account \(name)"
                : "Added account \(name) at \(issuer)"
            let forWhat = request.forResource.map { " for \($0)" } ?? ""
            StandardStreams.err("\(what)\(forWhat); sign in with: linkctl login \(name)\n")
            if mine?.entry("registered")?.plainText == "unmanaged" {
                StandardStreams.err(
                    "Note: the provider offers no way to delete the client (RFC 7592); it stays there after linkctl account remove \(name)\n"
                )
            }
            return ExitCode.ok
        } catch {
            if error.code == nil {
                Output.error(
                    "registering a client or reading a resource's metadata needs linkrouterd: \(error.text); or give --issuer URL and --client-id ID"
                )
                return error.exitCode
            }
            Output.error(error.text)
            return error.exitCode
        }
    }
}
