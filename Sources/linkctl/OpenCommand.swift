import DBusKit
import DesktopIntegration
import Glibc
import LinkRouterCore
import LinkRouterFiles
import SystemKit

/// `linkctl open URI`: what every `.desktop` handler of linkrouter runs
/// (`Exec=<linkctl> open -- %u`). Exactly one absolute URL with a scheme
/// linkrouter handles; anything else is refused before the bus is touched.
enum OpenCommand {
    static let spec = CommandSpec(
        name: "open",
        summary:
            "Route one link: a login callback to the app waiting for it, a deep link to its app, a web link to the browser.",
        operands: "URI", operandCount: 1...1, options: [],
        details: """
            This is what linkrouter's desktop files run on every link click. It prints what became of
            the link: completed, failed or resumed (a login callback), delivered or launched (the app
            that owns it took it, or was started with it), passthrough (to the browser), or queued (no
            daemon was reachable). Spaces and non-ASCII characters a launcher decoded on the way (KDE
            turns %20 into a space) are percent-encoded again first; nothing else is changed.
            Exit status 0 for all of these, 1 when the daemon refused it or its app could not take it,
            64 when the argument is not one absolute URL with a scheme linkrouter handles (http, https,
            or a reverse-domain scheme).
            """,
        run: run)

    static func run(_ args: ParsedArguments) -> Int32 {
        // What a launcher decoded on the way (KDE: `%20` → space, UTF-8 escapes → characters) is put back first.
        let uri = LinkIntake.restoringEncoding(args.operands[0])
        if let problem = LinkIntake.refusal(uri) {
            Output.error(problem)
            return ExitCode.usage
        }
        if LinkIntake.isLoop(uri, hopMarked: Environment.get(LinkIntake.hopVariable) != nil) {
            Output.error(LinkIntake.loopRefusal)
            return ExitCode.refused
        }
        // The click's activation token, for the app's window to take focus (xdg-activation, startup notification).
        var context: [(String, DBusValue)] = []
        if let t = Environment.nonEmpty("XDG_ACTIVATION_TOKEN") {
            context.append((LinkIntake.activationTokenKey, .string(t)))
        }
        if let t = Environment.nonEmpty("DESKTOP_STARTUP_ID") {
            context.append((LinkIntake.desktopStartupIDKey, .string(t)))
        }
        do throws(DaemonClient.Failure) {
            // The front sent the link and no daemon answered: straight to what happens without one, never a second send.
            if let detail = Environment.get(DaemonReachability.frontFoundUnreachable) {
                unsetenv(DaemonReachability.frontFoundUnreachable)
                let sentAs = Environment.get(DaemonReachability.frontSentAs).flatMap { ClickID(text: $0) }
                unsetenv(DaemonReachability.frontSentAs)
                if let sentAs {
                    throw DaemonClient.Failure.unanswered(
                        DaemonReachability.unreachable(detail, daemon: DaemonClient.daemonCommand()), sentAs: sentAs)
                }
                throw DaemonClient.Failure.unavailable(
                    DaemonReachability.unreachable(detail, daemon: DaemonClient.daemonCommand()))
            }
            let client = try DaemonClient.connect()
            // Any link may wait for its app to start (D-Bus activation): the answer says what became of it.
            // RouteLink only when there is a context to carry: `Route` is the same call without one,
            // and building an empty a{sv} costs linkctl ~40 k instructions on every click.
            let timeout = LinkIntake.clientWaitMilliseconds
            let outcome =
                context.isEmpty
                ? try client.call("Route", [.string(uri)], timeoutMilliseconds: timeout)
                : try client.call("RouteLink", [.string(uri), .vardict(context)], timeoutMilliseconds: timeout)
            Output.line(outcome.first?.stringValue ?? "")
            return ExitCode.ok
        } catch .unavailable(let why) {
            let paths = LinkRouterPaths()
            switch LinkIntake.withoutDaemon(uri, pending: ClaimedCallbacksFile.read(paths.claimedCallbacksFile)) {
            case .browser: return openDirectly(uri, because: why, paths: paths)
            case .queue: return queue(uri, because: why)
            }
        } catch .unanswered(let why, let sentAs) {
            // The daemon may have the link (stalled, or gone with it unanswered): never opened or sent again here.
            // Queued under its call's id, it is routed once, from whichever copy the daemon meets first.
            return queue(uri, because: why, sentAs: sentAs)
        } catch {
            Output.error(error.text)
            return ExitCode.refused
        }
    }

    /// No daemon: a callback waits in the inbox for the daemon to start (`sentAs`: the unanswered call it went out
    /// as, so the daemon routes it once).
    static func queue(_ uri: String, because why: String, sentAs: ClickID? = nil) -> Int32 {
        do {
            guard let inbox = LinkRouterPaths().inboxDirectory else {
                throw SystemError("queue the link", path: "$XDG_RUNTIME_DIR", code: ENOENT)
            }
            let path = try InboxDirectory(path: inbox).enqueue(uri, sentAs: sentAs)
            StandardStreams.err("linkctl: \(why); queued the link as \(path), to be routed when linkrouterd starts\n")
            Output.line("queued")
            return ExitCode.ok
        } catch {
            Output.error("\(why), and the link could not be queued: \(error)")
            return ExitCode.unavailable
        }
    }

    /// No daemon, and a web link that is no pending callback: the browser.
    static func openDirectly(_ uri: String, because why: String, paths: LinkRouterPaths) -> Int32 {
        guard let browser = Browsers().forWebLinks(record: InstallRecord.read(paths.installRecord)).entry else {
            Output.error("\(why), and no web browser is set to open the link with; run linkctl doctor")
            return ExitCode.unavailable
        }
        do {
            try BrowserLauncher.open(uri, with: browser)
            StandardStreams.err("linkctl: \(why); opened the link in \(browser.id) directly\n")
            Output.line(RouteOutcome.passthrough.word)
            return ExitCode.ok
        } catch {
            Output.error("\(why), and \(error.description)")
            return ExitCode.unavailable
        }
    }
}
