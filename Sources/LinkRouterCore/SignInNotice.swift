/// The person told, once, that an account needs a sign-in, with the action
/// that starts it (Android's AccountManager posts "Sign in to …" and the tap
/// starts the login; pizauth runs a notify command): a desktop notification
/// (`org.freedesktop.Notifications`) naming the account and its provider,
/// whose default action begins the account's browser sign-in in the daemon.
///
/// At most one per account while it is shown, and none again within
/// `repeatSeconds` of the last (however many callers keep asking); withdrawn
/// once the account is signed in. With no notification server nothing waits:
/// callers have their `NotSignedIn` at once, as without one.
public struct SignInNotice: OperationMachine {
    public let key: AccountKey
    /// The server's id for it, once shown.
    public var shown: UInt32?

    /// What the person reads: summary, body and the one action.
    public struct Text: Sendable, Equatable {
        public let summary: String
        public let body: String
        /// The action a click on the notification takes (`default`), and its label.
        public let action: (key: String, label: String)

        public static func == (a: Text, b: Text) -> Bool {
            a.summary == b.summary && a.body == b.body && a.action == b.action
        }
    }

    public enum Work: Sendable, Equatable {
        case show(Text)
    }

    public enum Event: Sendable {
        /// The server took it (its id), or there is none.
        case shown(Result<UInt32, RouterError>)
        /// The person invoked an action (`default`: a click): a sign-in begins, with what a begin needs.
        case invoked(action: String, inputs: BeginInputs, accounts: [Account])
        /// The server closed it (1 expired, 2 dismissed by the person, 3 closed by a call).
        case closed(reason: UInt32)
    }

    /// The least time between two notices for one account (pizauth's `auth_notify_interval`).
    public static let repeatSeconds: Int64 = 15 * 60

    var running: Running { .signInNotice(self) }

    init?(_ running: Running) {
        guard case .signInNotice(let m) = running else { return nil }
        self = m
    }

    init(key: AccountKey) { self.key = key }

    /// What the notification says for `account` (`why`: why it needs a sign-in). Plain text: the account's name and
    /// its issuer are the declaration's (no markup is sent, so none is read).
    static func text(_ account: Account, why: String) -> Text {
        Text(
            summary: "Sign in to \(account.name)",
            body:
                "\(account.name) at \(account.issuer) needs a new sign-in (\(why)). Click to sign in in your browser.",
            action: (key: "default", label: "Sign in"))
    }

    /// The person is told that `account` needs a sign-in, unless a notice for it is up or was within
    /// `repeatSeconds`.
    static func asking(_ account: Account, why: String, _ turn: inout Turn) -> Transition {
        var state = turn.accounts[account.key] ?? AccountTokens()
        guard state.notice == nil, state.noticeAt.map({ turn.now - $0 >= repeatSeconds }) ?? true else {
            return Transition()
        }
        let op = turn.ids.take()
        state.notice = op
        state.noticeAt = turn.now
        return Transition(
            core: [.track(op, .signInNotice(SignInNotice(key: account.key))), turn.set(account.key, state)],
            effects: [.start(op, .signInNotice(.show(text(account, why: why))))])
    }

    /// The account is signed in: its notice, if one is up, is withdrawn.
    static func withdrawing(_ key: AccountKey, _ turn: inout Turn) -> Transition {
        guard var state = turn.accounts[key], let op = state.notice else { return Transition() }
        state.notice = nil
        state.noticeAt = nil
        var t = Transition(core: [.finish(op), turn.set(key, state)])
        if case .signInNotice(let m)? = turn.core.running[op], let id = m.shown {
            t.effects.append(.closeNotification(id))
        }
        return t
    }

    mutating func handle(_ event: Event, op: OperationID, _ turn: inout Turn) -> Transition {
        switch event {
        case .shown(.success(let id)):
            shown = id
            return Transition()
        case .shown(.failure):
            // No notification server (or it refused): nothing to wait for; callers had their answer already.
            return ending(op, &turn)
        case .closed:
            // Dismissed, expired or closed: the next notice waits `repeatSeconds` from this one's.
            return ending(op, &turn)
        case .invoked(let action, let inputs, let accounts):
            var t = ending(op, &turn)
            // Acted on: it goes (a server may keep a notification whose action ran).
            if let shown { t.effects.append(.closeNotification(shown)) }
            guard action == "default", let account = accounts.first(where: { $0.key == key }) else { return t }
            // The person's click is theirs: the daemon begins the account's sign-in in their browser, owned by no
            // bus client; the tokens go to the account when it completes.
            var request = SessionRequest()
            request.account = account.name
            request.openBrowser = true
            do throws(RouterError) { try request.use(account) } catch {
                return t.logging(LogLine(.warning, "Could not begin \(account.name)'s sign-in: \(error.message)"))
            }
            let begin = Begin(request: request, flow: .code, inputs: inputs, caller: "")
            t = t.then(begin.proceed(held: nil, &turn))
            t.reply = .none
            return t.logging(LogLine(.info, "Signing in to \(account.name), as the person asked from its notification"))
        }
    }

    /// The notice is over (its id and the time it was shown stay, for `repeatSeconds`).
    private func ending(_ op: OperationID, _ turn: inout Turn) -> Transition {
        var t = Transition(core: [.finish(op)])
        if var state = turn.accounts[key], state.notice == op {
            state.notice = nil
            t.core.append(turn.set(key, state))
        }
        return t
    }
}

/// The notification server's answers about the daemon's notices.
extension Router {

    /// `ActionInvoked(id, action)` from the notification server: the notice it belongs to (if it is one of ours)
    /// takes the person's answer, with what a sign-in needs (gathered by the daemon before it asks).
    public func noticeInvoked(
        _ id: UInt32, action: String, inputs: BeginInputs, accounts: [Account], now: Int64
    ) -> Transition {
        guard let op = notice(shown: id) else { return Transition() }
        return completed(op, .signInNotice(.invoked(action: action, inputs: inputs, accounts: accounts)), now: now)
    }

    /// `NotificationClosed(id, reason)`: the notice it belongs to is over.
    public func noticeClosed(_ id: UInt32, reason: UInt32, now: Int64) -> Transition {
        guard let op = notice(shown: id) else { return Transition() }
        return completed(op, .signInNotice(.closed(reason: reason)), now: now)
    }

    /// Whether the notification server's `id` is one of the daemon's notices.
    public func isNotice(_ id: UInt32) -> Bool { notice(shown: id) != nil }

    /// The notice the server knows as `id`.
    private func notice(shown id: UInt32) -> OperationID? {
        running.first { _, m in if case .signInNotice(let n) = m { n.shown == id } else { false } }?.key
    }
}
