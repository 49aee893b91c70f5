import DBusKit
import DesktopIntegration
import Glibc
import LinkRouterAPI
import LinkRouterCore
import LinkRouterFiles
import Loopback
import OpenIDConnect
import Store
import SystemKit

/// `linkrouterd`: one thread, one loop, one bus connection. The router
/// decides and returns a `Transition`; the executor (`Daemon+Executor.swift`)
/// carries it out. docs/architecture.md walks one link through both.
public final class Daemon {
    let config: DaemonConfiguration
    let loop = EventLoop()
    let connection: DBusConnection
    var router: Router
    var store: SessionStore?
    /// Why the store is unavailable, for error messages (nil when it is fine).
    var storeProblem: String?
    var waiters: [SessionID: [Waiter]] = [:]
    var deadlines = DeadlineQueue()
    /// The one loop timer that serves `deadlines`, and when it fires.
    var deadlineTimer: (id: EventLoop.TimerID, at: Int64)?
    var listeners: [SessionID: LoopbackListener] = [:]
    /// The session whose listener is answering a request right now.
    var servingLoopback: SessionID?
    let log = LogLimiter()
    var signals: SignalSource?
    var checkpointTimer: EventLoop.TimerID?
    var inbox: Inbox?
    var routeLimiter: RateLimiter
    var launchLimiter = RateLimiter(perSecond: 10)
    var exitStatus: Int32 = 0
    var counters = Counters()
    /// The apps that take links, and the fingerprint of the files they came from.
    var appsCache: (fingerprint: [Int64], apps: AppDirectory, problems: [LinkApps.Problem])?
    /// The daemon's own calls awaiting replies (an app's `Open`), by serial.
    var pendingCalls: [UInt32: PendingCall] = [:]
    var publishedClaimedVersion = -1
    /// Prepared `PropertiesChanged` signals, one per status.
    var statusSignals: [SessionStatus: DBusMessage] = [:]
    /// The OpenID Connect client (discovery, token endpoint), made on first use: libcurl loads then.
    var openIDClient: TokenClient?
    /// Callers whose `BeginSession` waits for discovery, and how many each; those that
    /// left the bus meanwhile get no session when it comes (nobody could own it).
    var awaitingDiscovery: [String: Int] = [:]
    var leftDuringDiscovery: Set<String> = []
    let started = Clock.monotonicMilliseconds()
    /// Browsers are started by the user manager when the daemon is a sandboxed systemd service.
    let launchMethod = BrowserLauncher.Method.forThisProcess()
    /// The paths the daemon shares with linkctl (from `--runtime-dir`, `--state-dir`).
    var paths: LinkRouterPaths { config.paths }

    init(config: DaemonConfiguration, connection: DBusConnection) {
        self.config = config
        self.connection = connection
        self.router = Router(limits: config.limits)
        self.routeLimiter = RateLimiter(perSecond: config.maxRoutesPerSecond)
    }

    /// The whole program: parse, connect, serve until SIGTERM.
    public static func main(_ arguments: [String]) -> Int32 {
        let config: DaemonConfiguration
        switch DaemonConfiguration.parse(arguments) {
        case .exit(let status, let text):
            if status == 0 { StandardStreams.out(text) } else { StandardStreams.err(text) }
            return status
        case .run(let c):
            config = c
        }
        // Secrets live in this process: no core dumps, no same-user ptrace (threat model P4).
        let hardened = ProcessHardening.disableCoreDumps()
        umask(0o077)
        SignalSource.ignoreBrokenPipes()
        let signals: SignalSource
        do { signals = try SignalSource([SIGTERM, SIGINT, SIGHUP, SIGCHLD]) } catch {
            Log.error("Failed to set up signal handling: \(error)")
            return 1
        }
        let connection: DBusConnection
        do {
            if let address = config.busAddress {
                connection = try DBusConnection(address: address)
            } else {
                connection = try DBusConnection.session()
            }
        } catch {
            Log.error("Failed to connect to the bus: \(error.message)")
            return 1
        }
        let daemon = Daemon(config: config, connection: connection)
        daemon.signals = signals
        if hardened {
            Log.info("Core dumps disabled and the process made non-dumpable (no ptrace by other processes of this user)")
        } else {
            Log.warning("Could not disable core dumps or make the process non-dumpable; a crash dump could hold login secrets")
        }
        return daemon.run()
    }

    func run() -> Int32 {
        signals?.attach(to: loop) { [unowned self] signal in self.handleSignal(signal) }
        openStore()
        connection.setHandler { [unowned self] message in self.handle(message) }
        connection.attach(to: loop)
        do {
            try connection.addMatch("type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged'")
        } catch {
            Log.error("Failed to watch for clients leaving the bus: \(error.message)")
            return 1
        }
        restoreSessions()
        switch Result(catching: { () throws(DBusError) in try connection.requestName(API.busName) }) {
        case .success(.primaryOwner), .success(.alreadyOwner):
            break
        case .success:
            Log.error("Another program already owns \(API.busName)\(ownerDescription()); not starting a second linkrouterd")
            return 1
        case .failure(let error):
            Log.error("Failed to request \(API.busName): \(error.message)")
            return 1
        }
        startInbox()
        checkHandlers()
        loop.afterEachTurn { [unowned self] in self.publishClaimedCallbacks() }
        let launching: String
        switch launchMethod {
        case .spawn: launching = "browsers are started directly"
        case .systemdRun: launching = "browsers are started by the systemd user manager"
        }
        Log.notice("linkrouterd \(API.version) serving \(API.busName) as \(connection.uniqueName); \(router.pendingCount) pending sessions; store: \(store?.path ?? "none (sessions are not durable)"); \(launching)")
        loop.run()
        shutdown()
        return exitStatus
    }

    /// Who holds the name, for the refusal message.
    func ownerDescription() -> String {
        let call = DBusMessage.methodCall("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixProcessID")
        guard (try? call.append(.string(API.busName.rawValue))) != nil,
              let reply = try? connection.callArguments(call, timeoutMilliseconds: 2000),
              case .uint32(let pid)? = reply.first else { return "" }
        return " (pid \(pid))"
    }

    func handleSignal(_ signal: Int32) {
        switch signal {
        case SIGCHLD:
            // Browsers are started detached; reap them so none lingers as a zombie.
            _ = Subprocess.reapFinished()
        case SIGHUP:
            Log.info("Received SIGHUP; desktop files and the install record are read afresh on every use, so there is nothing to reload")
        default:
            Log.notice("Received \(signal == SIGTERM ? "SIGTERM" : "SIGINT"); stopping")
            loop.stop()
        }
    }

    /// Stops cleanly: waiters hear why, listeners close, the store is checkpointed.
    func shutdown() {
        for (_, list) in waiters {
            for w in list { reply(to: w.call, error: DBusError(RouterError(.timeout, "linkrouterd is stopping; the session is kept and can be waited for again once it is back"))) }
        }
        waiters = [:]
        for (_, l) in listeners { l.close() }
        listeners = [:]
        store?.checkpoint()
        connection.flush()
        Log.notice("linkrouterd stopped")
    }

    // MARK: Bus output

    func send(_ message: DBusMessage) {
        do { try connection.send(message) } catch { Log.error("Failed to send a message: \(error.message)") }
    }

    func reply(to call: DBusMessage, values: [DBusValue]) {
        guard !call.noReplyExpected else { return }
        do {
            let r = try call.makeReturn()
            try r.append(contentsOf: values)
            send(r)
        } catch {
            reply(to: call, error: error)
        }
    }

    func reply(to call: DBusMessage, error: DBusError) {
        guard !call.noReplyExpected else { return }
        do { send(try call.makeError(name: error.name, message: error.message)) } catch {
            Log.error("Failed to build an error reply: \(error.message)")
        }
    }

    /// Wall-clock seconds, as sessions count time.
    var now: Int64 { Clock.unixSeconds() }
}
