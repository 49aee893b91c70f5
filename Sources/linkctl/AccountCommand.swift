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
            do {
                let entries = try OptionFlags.entries(AccountRequest.options, args)
                request = try OptionsDecoder.decode(.vardict(entries), AccountRequest.options, into: AccountRequest())
            } catch let e as UsageError {
                return LinkCtl.usageFailure(spec, e.message)
            } catch {
                return LinkCtl.usageFailure(spec, "\(error)")
            }
            // The two a declaration cannot do without, said as the flags they are (a usage error, 64).
            if request.issuer == nil {
                return LinkCtl.usageFailure(
                    spec, "give --issuer URL: the OpenID provider's issuer (its discovery gives the endpoints)")
            }
            if request.clientID == nil {
                return LinkCtl.usageFailure(
                    spec, "give --client-id ID: the public client registered for this account at the provider")
            }
            let account: Account
            do throws(RouterError) { account = try Account.make(name: name, request, owner: .user) } catch {
                Output.error(error.message)
                return ExitCode.refused
            }
            if FileSystem.status(path) != nil && !args.has("replace") {
                Output.error("account \(name) exists (\(path)); give --replace to change it")
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
                case .keyringLocked?, .noKeyring?, .keyringFailed?:
                    // The declaration is gone; the keyring could not forget the tokens.
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
}
