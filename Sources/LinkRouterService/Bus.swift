import DBusKit
import LinkRouterAPI
import LinkRouterCore
import SystemKit

/// The bus component: the daemon's one connection and everything it sends
/// on it. Incoming messages are DBusKit's `MessageDispatcher`'s: calls go to
/// the object server's rows, replies to the one pending table (a deadline
/// each), signals to the handlers of the rules they match. Calls answered
/// later are held here, keyed by the core's operation.
final class Bus {
    let connection: DBusConnection
    let loop: EventLoop
    let objects = ObjectServer()
    let calls: PendingCalls
    let signals = SignalSubscriptions()
    private let incoming: MessageDispatcher
    /// Calls held for an operation's outcome (`Transition.Reply.held`).
    private var held: [OperationID: DBusMessage] = [:]
    /// Prepared `PropertiesChanged` signals, one per status.
    private var statusSignals: [SessionStatus: DBusMessage] = [:]
    /// What runs when the connection to the bus is lost.
    var onDisconnect: () -> Void = {}
    /// The connection was lost, or a name could not be had: the daemon exits 1.
    private(set) var failed = false

    init(connection: DBusConnection, loop: EventLoop) {
        self.connection = connection
        self.loop = loop
        calls = PendingCalls(connection: connection, loop: loop)
        incoming = MessageDispatcher(connection: connection, objects: objects, calls: calls, signals: signals)
        objects.machineID = {
            ((try? FileSystem.readText("/etc/machine-id", maxBytes: 64)) ?? "").filter { $0.isHexDigit }
        }
    }

    func attach() {
        incoming.onDisconnect = { [unowned self] in
            failed = true
            onDisconnect()
        }
        incoming.attach(to: loop)
    }

    // MARK: Replies

    /// Signs `SignProof`'s answers as they are made (its keys kept between calls).
    let proofs = ProofSigner()

    /// A core reply as the D-Bus values (or the error) of a method return.
    func values(_ reply: Transition.Reply) -> Result<[DBusValue], DBusError> { ReplyValues.make(reply, proofs: proofs) }

    /// Keeps `call` to answer when operation `op` completes.
    func hold(_ call: DBusMessage, for op: OperationID) { held[op] = call }

    /// Answers the call held for `op` (nothing when none is: its caller left).
    func answer(_ op: OperationID, _ reply: Transition.Reply) {
        guard let call = held.removeValue(forKey: op) else { return }
        switch values(reply) {
        case .success(let values): connection.reply(to: call, values: values)
        case .failure(let error): connection.reply(to: call, error: error)
        }
    }

    /// Drops the call held for `op`, unanswered.
    func forget(_ op: OperationID) { held[op] = nil }

    var heldCount: Int { held.count }

    // MARK: Signals the daemon sends

    /// `PropertiesChanged` for a session whose status moved (broadcast: status only, nothing secret).
    /// The body depends only on the status, so each is built once and copied.
    func emitStatus(_ id: SessionID, _ status: SessionStatus) {
        do {
            let template: DBusMessage
            if let t = statusSignals[status] {
                template = t
            } else {
                template = try DBusMessage.signal(
                    path: API.sessionsPath, interface: API.propertiesInterface, member: "PropertiesChanged")
                try template.append(
                    .string(API.sessionInterface.rawValue), .vardict([("Status", .string(status.rawValue))]),
                    .stringArray([]))
                statusSignals[status] = template
            }
            let signal = try template.copy()
            try signal.setPath(API.path(of: id))
            connection.sendLogged(signal)
        } catch {
            Log.error("Failed to emit PropertiesChanged for \(id.logTag): \(error.message)")
        }
    }

    /// `resume=client`: the owner reopens `resume_uri` itself (a unicast signal, never a broadcast).
    func sendResumeRequested(_ id: SessionID, owner: String, url: String) throws(RouterError) {
        try sendToOwner(id, owner: owner, "ResumeRequested", [.string(url)])
    }

    /// `ReturnRequested(context)`: the way back from a loopback login's page was clicked; the owner presents its
    /// window with the click's token (a unicast signal, never a broadcast: the token is the owner's).
    func sendReturnRequested(_ id: SessionID, owner: String, handOff: ActivationContext) throws(RouterError) {
        var context: [(String, DBusValue)] = []
        if let t = handOff.activationToken { context.append(("activation_token", .string(t))) }
        if let t = handOff.desktopStartupID { context.append(("desktop_startup_id", .string(t))) }
        try sendToOwner(id, owner: owner, "ReturnRequested", [.vardict(context)])
    }

    /// Session `id`'s signal `member(values)`, to its owner alone.
    private func sendToOwner(_ id: SessionID, owner: String, _ member: MemberName, _ values: [DBusValue])
        throws(RouterError)
    {
        do throws(DBusError) {
            guard let destination = BusName(owner) else {
                throw DBusError(name: DBusError.invalidArgs, message: "the owner \(owner) is not a bus name")
            }
            let signal = try DBusMessage.signal(path: API.path(of: id), interface: API.sessionInterface, member: member)
            try signal.setDestination(destination)
            try signal.append(contentsOf: values)
            connection.sendLogged(signal)
        } catch {
            throw RouterError(.internalError, "could not send \(member): \(error.message)")
        }
    }

    /// `AccountChanged(account, state)`, to each client the news is for (a unicast each).
    func emitAccountChanged(_ news: AccountNews) {
        var state: [(String, DBusValue)] = [
            ("change", .string(news.change.rawValue)), ("issuer", .string(news.issuer)),
        ]
        if let at = news.expiresAt { state.append(("expires_at", .int64(at))) }
        if let why = news.why { state.append(("why", .string(why))) }
        for name in news.destinations {
            guard let destination = BusName(name),
                let signal = try? DBusMessage.signal(
                    path: API.managerPath, interface: API.managerInterface, member: "AccountChanged")
            else { continue }
            do throws(DBusError) {
                try signal.setDestination(destination)
                try signal.append(.string(news.account))
                try signal.append(.vardict(state))
                connection.sendLogged(signal)
            } catch {
                continue
            }
        }
    }

    /// A desktop notification (org.freedesktop.Notifications), best effort: nothing waits for its answer.
    func notify(summary: String, body: String) {
        try? Notify(appName: "linkrouter", icon: "dialog-warning", summary: summary, body: markup(body))
            .send(on: connection)
    }

    /// A notification's body as the server that will show it reads it (`Notify.body`).
    func markup(_ body: String) -> String { Notify.body(body, serverReadsMarkup: serverReadsMarkup) }

    /// `Effect.closeNotification`: withdrawn, best effort (a server gone has nothing to withdraw), and only from the
    /// server that showed it (another server's notification of the same id is not ours).
    func closeNotification(_ shown: ShownNotification) {
        guard notificationServer == shown.server else { return }
        try? CloseNotification(shown.id).send(on: connection)
    }

    // MARK: Calls the daemon makes

    /// Makes `call`; `completion` gets its reply, read, or the error, on the loop.
    func call<C: BusCall>(
        _ call: C, timeoutMilliseconds: Int64, _ completion: @escaping (Result<C.Reply, DBusError>) -> Void
    ) {
        call.call(timeoutMilliseconds: timeoutMilliseconds, via: calls, completion)
    }

    /// The pid behind a connection (`GetConnectionCredentials`), or nil when the bus does not say.
    /// The process behind a bus name, and the uid the bus says it connected as.
    func credentials(of name: String, _ completion: @escaping ((pid: UInt32, uid: UInt32?)?) -> Void) {
        ConnectionCredentials(of: name).call(timeoutMilliseconds: 5000, via: calls) { result in
            guard let c = try? result.get(), let pid = c.processID else { return completion(nil) }
            completion((pid, c.unixUserID))
        }
    }

    /// When each client's unique name appeared (`NameOwnerChanged`), on the boot clock in milliseconds, until it
    /// leaves: the process behind a caller's pid must have started by then (`CallerApps.app`). A name that was on the
    /// bus before the daemon has none; the moment the daemon began watching is the bound then (`appeared(_:)`).
    private var appearances: [String: Int64] = [:]

    /// The unique name that owns `org.freedesktop.Notifications`: only its `ActionInvoked` and
    /// `NotificationClosed` are the person's answers (any client can send a signal of that name, to everyone or to
    /// the daemon alone). Followed through `NameOwnerChanged`, first asked at start (`askNotificationServer`).
    private(set) var notificationServer: String? {
        didSet {
            guard notificationServer != oldValue else { return }
            serverReadsMarkup = true
            if notificationServer != nil { askCapabilities() }
        }
    }

    /// Whether the notification server shows bodies as markup (`body-markup`): true until it says otherwise, so an
    /// app's text is escaped whenever it might be read as markup (issue 44).
    private(set) var serverReadsMarkup = true

    /// The last `ActivationToken` the notification server sent, and the id it was for: the `ActionInvoked` that
    /// follows takes it (a token lives seconds; one waits for its click at most).
    private var activationToken: (id: UInt32, token: String)?

    /// The server sent `token` for notification `id` (a usable token only; anything else is no token).
    func activationTokenArrived(_ id: UInt32, _ token: String) {
        activationToken = ActivationContext.isUsable(token) ? (id, token) : nil
    }

    /// The token sent for `id` just before its `ActionInvoked`, taken once.
    func takeActivationToken(_ id: UInt32) -> String? {
        defer { activationToken = nil }
        return activationToken?.id == id ? activationToken?.token : nil
    }

    /// Asks the bus who serves notifications now (a server that came before the daemon sent no `NameOwnerChanged`).
    func askNotificationServer() {
        BusProxy.bus.call("GetNameOwner", [.string("org.freedesktop.Notifications")], via: calls) { [weak self] r in
            guard let self, self.notificationServer == nil, case .success(let values) = r,
                let owner = values.first?.stringValue
            else { return }
            self.notificationServer = owner
        }
    }

    /// Asks the server what it does; its answer counts while it is still the server.
    private func askCapabilities() {
        let server = notificationServer
        NotificationCapabilities().call(timeoutMilliseconds: 5000, via: calls) { [weak self] r in
            guard let self, self.notificationServer == server, case .success(let capabilities) = r else { return }
            self.serverReadsMarkup = capabilities.contains("body-markup")
        }
    }

    /// A unique name came (`old` empty) or went (`new` empty); a well-known one changed hands.
    func nameChanged(_ name: String, old: String, new: String) {
        if name == "org.freedesktop.Notifications" { notificationServer = new.isEmpty ? nil : new }
        guard name.hasPrefix(":") else { return }
        if old.isEmpty, !new.isEmpty { appearances[name] = Clock.monotonicMilliseconds() }
        if new.isEmpty { appearances[name] = nil }
    }

    /// When the bus began telling the daemon of names that come (the `NameOwnerChanged` rule added).
    private var watchingSince: Int64?

    /// The rule that brings `NameOwnerChanged` is on the bus from now: any name not seen to appear after this
    /// appeared before it.
    func watchingNames() { watchingSince = Clock.monotonicMilliseconds() }

    /// When `name` appeared (`seen`: the daemon saw it appear); for one that came before the daemon watched, the
    /// moment it began watching, which is later than the name's appearance and earlier than any process that took a
    /// reused pid since (issue 44: "now" let a pid reused between a connection older than the daemon and its first
    /// call pass for it). Such a bound is strict (`CallerApps.app`'s `before`): a pid taken in the very clock tick
    /// the daemon began watching is not the connection's (seen in CI once).
    func appeared(_ name: String) -> (milliseconds: Int64, seen: Bool) {
        if let seen = appearances[name] { return (seen, true) }
        return (watchingSince ?? Clock.monotonicMilliseconds(), false)
    }

    // MARK: Asking the bus

    /// `Operation.busNames`: the bus's id and every name on it, in two calls, neither blocking.
    func snapshot(_ completion: @escaping (Result<BusSnapshot, RouterError>) -> Void) {
        BusProxy.bus.call("GetId", via: calls) { [calls] id in
            BusProxy.bus.call("ListNames", via: calls) { names in
                switch (id, names) {
                case (.success(let i), .success(let n)):
                    guard let busID = i.first?.stringValue, case .array(_, let items)? = n.first else {
                        completion(.failure(RouterError(.internalError, "the bus answered GetId or ListNames oddly")))
                        return
                    }
                    completion(.success(BusSnapshot(id: busID, names: Set(items.compactMap(\.stringValue)))))
                case (.failure(let e), _), (_, .failure(let e)):
                    completion(.failure(RouterError(.internalError, e.message)))
                }
            }
        }
    }

    /// Gives `names` back at a stop (a blocking call: the loop has ended), so
    /// a call made from now on starts the next daemon by D-Bus activation
    /// instead of reaching this one, which no longer answers.
    func release(_ names: [BusName]) {
        for name in names {
            guard let m = try? BusProxy.bus.message("ReleaseName", [.string(name.rawValue)]) else { continue }
            do { _ = try connection.callArguments(m, timeoutMilliseconds: 2000) } catch {
                if !failed { Log.warning("Failed to release \(name): \(error.message)") }
            }
        }
    }

    /// Asks for each of `names` (none queued); `completion` hears the first
    /// refused with who holds it, or nil once all are the daemon's.
    func own(_ names: [BusName], _ completion: @escaping (String?) -> Void) {
        guard let name = names.first else { return completion(nil) }
        let completion: (String?) -> Void = { [weak self] refusal in
            if refusal != nil { self?.failed = true }
            completion(refusal)
        }
        let doNotQueue: UInt32 = 4  // DBUS_NAME_FLAG_DO_NOT_QUEUE
        BusProxy.bus.call("RequestName", [.string(name.rawValue), .uint32(doNotQueue)], via: calls) { [self] result in
            switch result {
            case .success(let r) where r.first == .uint32(1) || r.first == .uint32(4):
                own(Array(names.dropFirst()), completion)
            case .success:
                BusProxy.bus.call(
                    "GetConnectionUnixProcessID", [.string(name.rawValue)], timeoutMilliseconds: 2000, via: calls
                ) { pid in
                    let holder =
                        if case .success(let v) = pid, case .uint32(let p)? = v.first { " (pid \(p))" } else { "" }
                    completion("Another program already owns \(name)\(holder); not starting a second linkrouterd")
                }
            case .failure(let e):
                completion("Failed to request \(name): \(e.message)")
            }
        }
    }
}

/// A core reply as the D-Bus values (or the error) of a method return.
enum ReplyValues {
    /// A DPoP proof signed as the answer is made (`ProofSigner`): the key stays in the daemon, the proof goes to the
    /// caller.
    private static func signed(_ plan: ProofPlan, _ proofs: ProofSigner) -> Result<String, DBusError> {
        do { return .success(try proofs.sign(plan, issuedAt: Clock.coarseUnixSeconds())) } catch {
            return .failure(
                DBusError(
                    RouterError(
                        .internalError,
                        "the daemon could not sign a proof with the account's DPoP key (\(error.message)); sign the account in again for a new key"
                    )))
        }
    }

    static func make(_ reply: Transition.Reply, proofs: ProofSigner) -> Result<[DBusValue], DBusError> {
        switch reply {
        case .none, .held: return .success([])
        case .routed(let outcome): return .success([.string(outcome.word)])
        case .begun(let id, let url): return .success([.objectPath(API.path(of: id)), .string(url)])
        case .deviceBegun(let id, let flow, let expiresAt):
            var prompt: [(String, DBusValue)] = [
                ("user_code", .string(flow.userCode)), ("verification_uri", .string(flow.verificationURI)),
                ("expires_at", .int64(expiresAt)),
                ("interval", .uint32(flow.interval)),
            ]
            if let complete = flow.verificationURIComplete {
                prompt.append(("verification_uri_complete", .string(complete)))
            }
            return .success([.objectPath(API.path(of: id)), .vardict(prompt)])
        case .waited(.success(let r)): return .success([ResultDictionary.make(r)])
        case .loggedIn(let id, .success(let r)):
            return .success([.objectPath(API.path(of: id)), ResultDictionary.make(r)])
        case .tokens(let t): return .success([ResultDictionary.make(t)])
        case .token(let a):
            // With a proof asked for, it goes beside the token it is bound to.
            guard let plan = a.proof else { return .success([ResultDictionary.make(a)]) }
            return signed(plan, proofs).map { [ResultDictionary.make(a, proof: $0)] }
        case .proof(let plan): return signed(plan, proofs).map { [DBusValue.string($0)] }
        case .accounts(let list): return .success([.array(element: "a{sv}", list.map(\.dictionary))])
        case .signedOut(let outcome): return .success([.vardict(outcome.entries.map { ($0.0, .string($0.1)) })])
        case .forwarding(let path): return .success([.string(path)])
        case .waited(.failure(let e)), .loggedIn(_, .failure(let e)), .refused(let e): return .failure(DBusError(e))
        }
    }
}
