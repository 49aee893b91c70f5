import DBusKit
import Glibc
import LinkRouterAPI
import LinkRouterCore
import SystemKit

/// `linkrouterd`: one thread, one loop, and the components that own the
/// daemon's state, wired together here. The core (`Router`, held by `Core`)
/// decides every event and returns a `Transition`; the executor
/// (`Daemon+Executor.swift`) carries it out by calling on the components;
/// work that waits comes back as `Router.completed` (`Daemon+Operations.swift`).
/// No component calls another: what crosses between them goes through here.
/// docs/architecture.md walks a callback, a `BeginSession` and a deep link.
public final class Daemon {
    let loop: EventLoop
    /// The connection, the objects it serves, the calls it makes and holds.
    let bus: Bus
    /// The core: the sessions, the machines waiting on operations, callers, accounts' tokens.
    let core: Core
    /// The store, deadlines, timers and loopback listeners.
    let sessions: Sessions
    /// Browsers and apps, and the limit on starting them.
    let launcher: Launcher
    /// OpenID providers: metadata, keys, the token endpoint.
    let providers: Providers
    /// Links that come in: the flood limit, the inbox, their counts.
    let links: Links
    /// Declared accounts, and the keyring their tokens live in.
    let accounts: Accounts
    /// The oidc-agent socket and its connections.
    let agent: Agent
    /// Log lines, at most so many a second (threat model X1, X3).
    let log = LogLimiter()
    /// The executable this process runs, watched for an upgrade replacing it.
    private var executable: ExecutableWatcher?
    /// `Effect.restart` was carried out: the loop stopped to start again on a new executable.
    var restarting = false

    /// `activated`: the sockets systemd passed (`SocketActivation`), by name.
    init(config: DaemonConfiguration, connection: DBusConnection, loop: EventLoop, activated: [String: Int32] = [:]) {
        self.loop = loop
        bus = Bus(connection: connection, loop: loop)
        core = Core(limits: config.limits)
        sessions = Sessions(
            storeDirectory: config.storeDirectory,
            claimedCallbacksFile: config.paths.claimedCallbacksFile, loop: loop)
        launcher = Launcher(paths: config.paths)
        providers = Providers(loop: loop)
        links = Links(maxPerSecond: config.maxRoutesPerSecond, inboxDirectory: config.paths.inboxDirectory)
        accounts = Accounts(paths: config.paths, loop: loop, busAddress: config.busAddress ?? BusAddress.session())
        agent = Agent(loop: loop, path: config.paths.agentSocket, activated: activated[AgentSocket.name])
        // The components' calls to the core, wired here so that an in-process daemon has them too.
        sessions.onDeadline = { [unowned self] id in execute(core.router.deadlineReached(id, now: now)) }
        // After a burst, the core gives its tables' room back with the store's (unwired from 99dec1a to here, the
        // soak's million sessions left 8 MiB behind).
        sessions.onCheckpoint = { [unowned self] in core.compact() }
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
        // Before anything else opens a descriptor or starts a program: systemd's sockets, and its variables gone.
        let activated = SocketActivation.take()
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
        let daemon = Daemon(config: config, connection: connection, loop: EventLoop(), activated: activated)
        if hardened {
            Log.info(
                "Core dumps disabled and the process made non-dumpable (no ptrace by other processes of this user)")
        } else {
            Log.warning(
                "Could not disable core dumps or make the process non-dumpable; a crash dump could hold login secrets")
        }
        if !UserNamespace.isInitial {
            Log.warning(
                "linkrouterd runs in a user namespace other than the initial one (PrivateUsers=, a container): a caller whose root it may not enter is taken as an unknown app, never the host, so its calls about accounts and tokens are refused"
            )
        }
        signals.attach(to: daemon.loop) { [unowned daemon] signal in daemon.handleSignal(signal) }
        return daemon.run()
    }

    /// Wires the components, restores the sessions (the restore transition
    /// ends with `Effect.serve`, which takes the bus name), runs the loop.
    func run() -> Int32 {
        bus.objects.register(API.managerPath, [Interfaces.managerTable.serving(self, ())])
        bus.objects.registerSubtree(
            API.sessionsPath, missing: "sessions live under \(API.sessionsPath) until they are purged",
            children: { [unowned self] in core.router.all.map(\.id).sorted().map(\.rawValue) },
            resolve: { [unowned self] element in
                guard let id = SessionID(element), let s = core.router.session(id) else { return nil }
                return [Interfaces.sessionTable.serving(self, s)]
            })
        bus.onDisconnect = { [unowned self] in
            Log.error("Disconnected from the bus; stopping (D-Bus activation or systemd will start linkrouterd again)")
            loop.stop()
        }
        bus.attach()
        do {
            try bus.signals.subscribe(.nameOwnerChanged, on: bus.connection) { [unowned self] m in nameOwnerChanged(m) }
            bus.watchingNames()
            // The Secret Service's collections changing (locked, unlocked): sets the keyring could not take are
            // written.
            try bus.signals.subscribe(
                .init(interface: "org.freedesktop.Secret.Service", member: "CollectionChanged"), on: bus.connection
            ) { [unowned self] _ in execute(core.router.keyringChanged(now: now)) }
            for rule in NotificationSignal.rules {
                try bus.signals.subscribe(rule, on: bus.connection) { [unowned self] m in notificationSignal(m) }
            }
            bus.askNotificationServer()
        } catch {
            Log.error("Failed to watch for clients leaving the bus: \(error.message)")
            return 1
        }
        sessions.openStore()
        let (stored, previousBus) = sessions.load()
        execute(core.router.restore(stored, previousBusID: previousBus, now: now))
        loop.afterEachTurn { [unowned self] in
            sessions.publishClaimedCallbacks(version: core.router.claimedVersion) { core.router.claimedCallbacks }
            if core.router.restartWanted { execute(core.router.restartIfIdle()) }
            if core.router.stopWanted { execute(core.router.stopIfSettled(accounts: accounts.all())) }
        }
        watchExecutable()
        loop.run()
        shutdown()
        if restarting { return Effect.restartExitStatus }
        return bus.failed ? 1 : 0
    }

    /// An upgrade that replaces the executable is an event of the core, which
    /// restarts the daemon once nothing is cut short (docs/packaging.md).
    private func watchExecutable() {
        do {
            let w = try ExecutableWatcher()
            w.attach(to: loop) { [unowned self, path = w.path] in execute(core.router.executableReplaced(path)) }
            executable = w
        } catch {
            Log.warning(
                "Cannot watch the executable for upgrades (\(error)); after one, stop linkrouterd to start the new version"
            )
        }
    }

    /// `Effect.serve`: start-up is over. The bus name is asked for only now,
    /// so no call arrives before the stored sessions are settled; then the
    /// inbox is taken and the handlers checked.
    func serve() {
        bus.own([API.busName]) { [unowned self] refusal in
            if let refusal {
                Log.error(refusal)
                loop.stop()
                return
            }
            links.startInbox(on: loop) { [unowned self] link in
                routeLink(link, source: .link, via: "queued link", caller: "", context: .none, answers: false)
            }
            launcher.checkHandlers()
            startAgent()
            let declared = accounts.all()
            // Sets an earlier daemon set aside are newer than the keyring's: adopted, and written there.
            let sets = accounts.setAsideSets()
            if !sets.isEmpty { execute(core.router.setAsideFound(sets, accounts: declared, now: now)) }
            // Sign-ins the last daemon's notices asked for when it stopped are asked for again.
            let carried = accounts.takeCarriedSignIns()
            if !carried.isEmpty { execute(core.router.signInsCarried(carried, accounts: declared, now: now)) }
            // Accounts refreshed ahead of need get their timers now, not at their first call.
            execute(core.router.startingAhead(declared, now: now))
            let launching =
                launcher.method == .spawn
                ? "browsers are started directly" : "browsers are started by the systemd user manager"
            Log.notice(
                "linkrouterd \(API.version) serving \(API.busName) as \(bus.connection.uniqueName); \(core.router.pendingCount) pending sessions; store: \(sessions.store?.path ?? "none (sessions are not durable)"); \(launching)"
            )
        }
    }

    /// The oidc-agent socket, wired to the core: a request is an account call of its connection's, and a connection
    /// that ends is a caller gone. Only once the bus name is this daemon's, so two daemons never take turns at it.
    private func startAgent() {
        guard let path = agent.path else { return }
        agent.onRequest = { [unowned self] name, request, forward in agentRequest(name, request, through: forward) }
        agent.onGone = { [unowned self] name in execute(core.router.ownerGone(name, now: now)) }
        agent.onLog = { [unowned self] priority, line in log.write(priority, line) }
        do {
            try FileSystem.ensurePrivateDirectory(FileSystem.directoryName(path))
            try agent.start()
        } catch {
            Log.warning(
                "The oidc-agent socket could not be made (\(error)); oidc-agent's clients cannot reach linkrouterd")
        }
    }

    /// `NameOwnerChanged`: a client came (its time noted, the bound its identity is checked against) or left
    /// (threat model D2).
    func nameOwnerChanged(_ m: DBusMessage) {
        // Only the bus itself says who owns what.
        guard m.sender == "org.freedesktop.DBus", let args = try? m.arguments(), args.count == 3,
            case .string(let name) = args[0], case .string(let oldOwner) = args[1], case .string(let newOwner) = args[2]
        else { return }
        bus.nameChanged(name, old: oldOwner, new: newOwner)
        guard name.hasPrefix(":"), newOwner.isEmpty else { return }
        execute(core.router.ownerGone(name, now: now))
    }

    func handleSignal(_ signal: Int32) {
        switch signal {
        case SIGCHLD:
            // Browsers are started detached; reap them so none lingers as a zombie.
            _ = Subprocess.reapFinished()
        case SIGHUP:
            Log.info(
                "Received SIGHUP; desktop files and the install record are read afresh on every use, so there is nothing to reload"
            )
        default:
            let name = signal == SIGTERM ? "SIGTERM" : "SIGINT"
            guard !core.router.stopWanted else {
                Log.notice("Received \(name) again; stopping now")
                return loop.stop()
            }
            // Stop once what providers gave once has landed (the core decides), or at the drain's deadline.
            Log.notice("Received \(name)")
            execute(core.router.stopRequested(now: now))
            loop.schedule(afterMilliseconds: Self.stopDrainMilliseconds) { [unowned self] in
                execute(core.router.stopDeadline(accounts: accounts.all()))
            }
        }
    }

    /// How long a SIGTERM waits for refreshes and keyring writes under way to land: a refresh's whole limit
    /// (`TokenClient.refreshTimeoutMilliseconds`, 60 s) and a keyring write after it (10 s), inside the unit's
    /// `TimeoutStopSec=` (90 s), after which systemd would kill the daemon and lose them anyway. Only a stop with
    /// such work under way waits; any other stop is at once.
    static let stopDrainMilliseconds: Int64 = 75_000

    /// Stops cleanly: listeners close, the store is checkpointed, the name is
    /// given back, and only then do held calls hear why, so a `Wait` asked
    /// again starts the next daemon instead of reaching this one.
    func shutdown() {
        agent.stop()
        sessions.closeAllListeners()
        sessions.checkpointNow()
        if !bus.failed { bus.release([API.busName]) }
        execute(core.router.stopping())
        bus.connection.flush()
        Log.notice(
            restarting ? "linkrouterd stopped, to be started again on its new executable" : "linkrouterd stopped")
    }

    /// Wall-clock seconds, as sessions count time.
    var now: Int64 { Clock.unixSeconds() }
}
