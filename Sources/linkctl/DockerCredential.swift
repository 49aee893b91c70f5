import DBusKit
import LinkRouterAPI
import LinkRouterCore
import SystemKit

/// `docker-credential-linkrouter get|store|erase|list|version`: linkctl run by
/// that name (a symlink `make install` makes) speaks docker's credential
/// helper protocol (`../shared/reference/credential-helper-protocols.md` §3):
/// the server URL on stdin, JSON with the Go field names on stdout. A
/// registry is answered by the account that lists it (`--registry`), with that
/// account's token as the secret; linkrouter stores nothing docker hands it.
enum DockerCredential {
    static let name = LinkctlLayout.dockerHelperName

    static func main(_ args: [String]) -> Int32 {
        guard let op = args.first, args.count == 1 else {
            StandardStreams.err("Usage: \(name) get|store|erase|list|version\n")
            return ExitCode.usage
        }
        switch op {
        case "version":
            StandardStreams.out("\(name) (linkrouter) \(API.version)\n")
            return ExitCode.ok
        case "get":
            let input = DockerRegistry.serverURL(StandardStreams.readAll(maxBytes: 4096))
            guard !input.isEmpty else {
                StandardStreams.out(DockerRegistry.noServerURL + "\n")
                return ExitCode.refused
            }
            // A registry reached in the clear (`http://`) gets no token (issue 36): a bare host, or https.
            guard let registry = DockerRegistry.host(of: input) else {
                StandardStreams.out(DockerRegistry.notFound + "\n")
                return ExitCode.refused
            }
            do {
                guard let account = ListedAccount.forRegistry(registry, in: try AccountToken.listed()) else {
                    StandardStreams.out(DockerRegistry.notFound + "\n")
                    return ExitCode.refused
                }
                let reply = try AccountToken.get(account.name, [(TokenOptionNames.idToken, .boolean(false))])
                if let warning = reply.warning { StandardStreams.err("\(name): warning: \(warning)\n") }
                StandardStreams.out(
                    DockerRegistry.answer(serverURL: input, username: account.username, secret: reply.token).text
                        + "\n")
                return ExitCode.ok
            } catch {
                StandardStreams.err("\(name): \(error.text)\n")
                StandardStreams.out(DockerRegistry.notFound + "\n")
                return ExitCode.refused
            }
        case "list":
            do {
                // One entry per registry: the first account that lists it answers it, as `get` does.
                var seen: Set<String> = []
                let pairs = try AccountToken.accounts().flatMap { a in
                    a.registries.map { ($0, JSON.string(a.username)) }
                }.filter { seen.insert($0.0).inserted }
                StandardStreams.out(JSON.object(pairs).text + "\n")
                return ExitCode.ok
            } catch {
                StandardStreams.err("\(name): \(error.text)\n")
                return error.exitCode
            }
        case "store":
            _ = StandardStreams.readAll(maxBytes: 1 << 16)
            StandardStreams.err(
                "\(name): linkrouter keeps its accounts' tokens itself; sign in with linkctl login NAME instead of docker login\n"
            )
            return ExitCode.refused
        case "erase":
            // docker logout: the account's sign-in is linkctl's to end (linkctl logout NAME).
            _ = StandardStreams.readAll(maxBytes: 4096)
            return ExitCode.ok
        default:
            StandardStreams.err("Usage: \(name) get|store|erase|list|version\n")
            return ExitCode.usage
        }
    }
}
