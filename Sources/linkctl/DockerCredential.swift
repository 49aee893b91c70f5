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
    /// What docker clients match on, on stdout, with exit 1.
    static let notFound = "credentials not found in native keychain"

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
            let input = String(decoding: StandardStreams.readAll(maxBytes: 4096), as: UTF8.self).trimmingWhitespace
            guard !input.isEmpty else {
                StandardStreams.out("no credentials server URL\n")
                return ExitCode.refused
            }
            // A registry reached in the clear (`http://`) gets no token (issue 36): a bare host, or https.
            guard let registry = host(of: input) else {
                StandardStreams.out(notFound + "\n")
                return ExitCode.refused
            }
            do {
                guard let account = try AccountToken.accounts().first(where: { $0.registries.contains(registry) })
                else {
                    StandardStreams.out(notFound + "\n")
                    return ExitCode.refused
                }
                let reply = try AccountToken.get(account.name, [("id_token", .boolean(false))])
                if let warning = reply.warning { StandardStreams.err("\(name): warning: \(warning)\n") }
                StandardStreams.out(
                    JSON.object([
                        ("ServerURL", .string(input)), ("Username", .string(account.username)),
                        ("Secret", .string(reply.token)),
                    ]).text + "\n")
                return ExitCode.ok
            } catch {
                StandardStreams.err("\(name): \(error.text)\n")
                StandardStreams.out(notFound + "\n")
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

    /// `https://registry.example.com/v1/` → `registry.example.com`; a bare host stays as it is. Lowercase. Nil for
    /// any scheme but https: a token never goes to a registry reached in the clear.
    static func host(of server: String) -> String? {
        var s = Substring(server)
        if let scheme = s.firstRange(of: "://") {
            guard s[..<scheme.lowerBound].lowercased() == "https" else { return nil }
            s = s[scheme.upperBound...]
        }
        if let slash = s.firstIndex(of: "/") { s = s[..<slash] }
        return String(s).lowercased()
    }
}

extension String {
    fileprivate var trimmingWhitespace: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\n" || f == "\r" || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\n" || l == "\r" || l == "\t" { s.removeLast() }
        return String(s)
    }
}
