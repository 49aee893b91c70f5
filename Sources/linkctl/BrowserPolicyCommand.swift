import Glibc
import JSONKit
import LinkRouterCore
import SystemKit

/// `linkctl browser-policy SCHEME --origin URL…` (and `--remove`): the managed
/// policies that let a login's callback of SCHEME leave Chromium and Firefox
/// without their "Open xdg-open?" / "Allow this site to open the link?" dialog,
/// for exactly those origins (`BrowserPolicy`, issue 45). For a fleet's
/// administrator: it writes system files (root), or under `--root DIR` for a
/// package's build or an image.
enum BrowserPolicyCommand {
    static let spec = CommandSpec(
        name: "browser-policy",
        summary: "Let Chromium and Firefox hand SCHEME's callbacks from these origins to linkrouter without asking.",
        operands: "SCHEME", operandCount: 1...1,
        options: [
            .value(
                "origin", "URL", "an origin the provider's pages are on, e.g. https://id.example.com", repeatable: true),
            .flag("remove", "take SCHEME's entries out again"),
            .value("root", "DIR", "write under DIR instead of / (an image, a package's build)"),
        ],
        details: """
            The first time a page sends the browser to a custom scheme, Chromium asks "Open xdg-open?" and \\
            Firefox "Allow this site to open the … link?". This writes the managed policies that answer it for \\
            SCHEME from the given origins only: Chromium's AutoLaunchProtocolsFromOrigins in \\
            /etc/chromium/policies/managed/linkrouter.json, and Firefox's AutoLaunchProtocolsFromOrigins and \\
            Handlers in /etc/firefox-esr/policies/policies.json and /etc/firefox/policies/policies.json (their \\
            other policies kept as they are). --remove takes SCHEME's entries out again (and a file of \\
            linkrouter's own when nothing is left in it). Needs root, unless --root is given. Browsers read \\
            their policies when they start.
            """,
        run: run)

    static func run(_ args: ParsedArguments) -> Int32 {
        let scheme = args.operands[0].lowercased()
        guard CallbackURI.isCustomScheme(scheme) else {
            return LinkCtl.usageFailure(spec, "\(scheme) is not a reverse-domain scheme such as com.example.app")
        }
        let remove = args.has("remove")
        let given = args.all("origin")
        if remove != given.isEmpty {
            return LinkCtl.usageFailure(spec, remove ? "--remove takes no --origin" : "give at least one --origin")
        }
        var origins: [String] = []
        for text in given {
            do throws(RouterError) { origins.append(try BrowserPolicy.origin(text)) } catch {
                return LinkCtl.usageFailure(spec, error.message)
            }
        }
        let root = args.value("root") ?? ""
        if root.isEmpty, geteuid() != 0 {
            Output.error("browser policies are system files (/etc): run this as root, or give --root DIR")
            return ExitCode.cantCreate
        }
        let allowed: [String]? = remove ? nil : origins
        do {
            let chromium = root + BrowserPolicy.chromiumFile
            let doc = BrowserPolicy.chromium(try read(chromium), scheme: scheme, origins: allowed)
            try write(doc, to: chromium, removeWhenEmpty: true)
            for path in BrowserPolicy.firefoxFiles.map({ root + $0 }) {
                try write(
                    BrowserPolicy.firefox(try read(path), scheme: scheme, origins: allowed), to: path,
                    removeWhenEmpty: false)
            }
        } catch {
            Output.error("\(error)")
            return ExitCode.cantCreate
        }
        StandardStreams.err(
            remove
                ? "\(scheme): the browsers ask again before handing its links on (once they restart).\n"
                : "\(scheme): Chromium and Firefox hand its links from \(origins.joined(separator: ", ")) on without asking (once they restart).\n"
        )
        return ExitCode.ok
    }

    /// The document at `path`, or nil when there is none; one that does not parse is an error (it is someone's).
    static func read(_ path: String) throws -> JSONValue? {
        guard FileSystem.exists(path) else { return nil }
        do { return try JSONParser.parse(try FileSystem.read(path, maxBytes: 1 << 20)) } catch {
            throw SystemError("\(path) is not JSON linkrouter can read (\(error)); nothing was changed", code: EINVAL)
        }
    }

    /// Writes `doc` to `path` (0644, its directories 0755): browsers run as every user. Chromium's file of
    /// linkrouter's own goes when it holds nothing.
    static func write(_ doc: JSONValue, to path: String, removeWhenEmpty: Bool) throws {
        if removeWhenEmpty, doc.objectValue?.isEmpty ?? false {
            if FileSystem.exists(path) { try FileSystem.remove(path) }
            return
        }
        try FileSystem.makeDirectories(FileSystem.directoryName(path), permissions: 0o755)
        try FileSystem.writeAtomically(path, text: JSONParser.encode(doc) + "\n", permissions: 0o644)
    }
}
