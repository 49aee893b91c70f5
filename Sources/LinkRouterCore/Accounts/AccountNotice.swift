/// The person told, once, that an account needs them, with the action that
/// does what is needed (Android's AccountManager posts "Sign in to …" and the
/// tap starts the login; pizauth runs a notify command): a desktop
/// notification (`org.freedesktop.Notifications`) naming the account and its
/// provider. Two needs have one:
/// - `signIn`: the account needs a new sign-in (its refresh token was refused,
///   or a caller found it signed out); the click begins the account's browser
///   sign-in in the daemon; withdrawn once it is signed in.
/// - `unlockKeyring`: the keyring is locked while the account's new tokens
///   wait in memory (lost if the daemon stops first) or its tokens cannot be
///   read; the click asks the Secret Service to unlock, which shows the
///   keyring's own password dialog; withdrawn once a keyring call works.
///
/// At most one per account while it is shown, and none of the same need again
/// within `repeatSeconds` of the last (however many callers keep asking). With
/// no notification server nothing waits: callers have their error at once, as
/// without one.
///
/// Only the person's accounts get a sign-in notice. An app's own account is
/// the app's to sign in (its calls are its own face: it starts its `Login`,
/// which the person sees it start); a notice for it would read, word for word,
/// as the person's own, and one click would sign the person in to an app's
/// copy of their account (issue 44). An unlock notice for an app's account
/// names the app.
public struct AccountNotice: AccountPart {
    /// The notice's operation: showing it, then the keyring's unlock prompt a click asks for.
    public let op: OperationID
    public let key: AccountKey
    public let purpose: Purpose
    public private(set) var phase: Phase = .showing

    /// Where the notice is; each phase takes the answers it waits on (`handle`).
    public enum Phase: Sendable, Equatable {
        /// `Notify` sent; the server's id not back yet.
        case showing
        /// On the person's screen: the server's id for it, and the server.
        case shown(ShownNotification)
        /// The person clicked an unlock notice (it is withdrawn): the keyring is being asked to show its prompt.
        case unlocking
    }

    /// The notification on the person's screen, while it is.
    public var shown: ShownNotification? {
        if case .shown(let notification) = phase { notification } else { nil }
    }

    /// What the person is asked to do.
    public enum Purpose: Sendable, Equatable {
        case signIn
        case unlockKeyring
    }

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
        /// Ask the Secret Service to unlock the default collection (its own prompt).
        case unlockKeyring
    }

    public enum Event: Sendable {
        /// The server took it, or there is none.
        case shown(Result<ShownNotification, RouterError>)
        /// The person invoked an action (`default`: a click): a sign-in begins, with what a begin needs and the
        /// activation token the server sent with the click (for the browser it opens).
        case invoked(action: String, activationToken: String?, inputs: BeginInputs, accounts: [Account])
        /// The server closed it (1 expired, 2 dismissed by the person, 3 closed by a call).
        case closed(reason: UInt32)
        /// The Secret Service showed its unlock prompt (true) or had nothing to unlock (false), or why not.
        case unlockAsked(Result<Bool, RouterError>)
    }

    /// The least time between two notices of one need for one account (pizauth's `auth_notify_interval`).
    public static let repeatSeconds: Int64 = 15 * 60

    static var work: AccountWork { .notice }
    static var slot: WritableKeyPath<AccountKeeper, AccountNotice?> { \.notice }

    init(op: OperationID, key: AccountKey, purpose: Purpose, atStop: Bool = false) {
        self.op = op
        self.key = key
        self.purpose = purpose
        self.atStop = atStop
    }

    /// Posted while the daemon stops (its words say so): one posted before gives way to it once.
    var atStop = false

    /// What the notification says for `account` (`why`: why it is needed). Plain text: the account's name and
    /// its issuer are the declaration's (no markup is sent, so none is read). `stopping`: the daemon waits for the
    /// keyring before it stops (`StopDrain`), and says what is at stake.
    static func text(_ account: AccountKey, _ purpose: Purpose, why: String, stopping: Bool = false) -> Text {
        if stopping, account.app == nil, purpose == .unlockKeyring {
            return Text(
                summary: "Unlock the keyring to keep \(account.name) signed in",
                body:
                    "linkrouter is stopping, and \(account.name)'s new tokens from \(account.issuer) are not in the keyring: \(why). Click to unlock it now; otherwise they are set aside until linkrouter starts again, or lost if the account says unsaved=drop.",
                action: (key: "default", label: "Unlock"))
        }
        if let app = account.app, purpose == .unlockKeyring {
            return Text(
                summary: "Unlock the keyring for an app's account",
                body:
                    "The keyring is locked: \(why). Click to unlock it; until then the tokens of \(app)'s own account \(account.name) (at \(account.issuer)) are in memory only.",
                action: (key: "default", label: "Unlock"))
        }
        return switch purpose {
        case .signIn:
            Text(
                summary: "Sign in to \(account.name)",
                body:
                    "\(account.name) at \(account.issuer) needs a new sign-in (\(why)). Click to sign in in your browser.",
                action: (key: "default", label: "Sign in"))
        case .unlockKeyring:
            Text(
                summary: "Unlock the keyring for \(account.name)",
                body:
                    "The keyring is locked: \(why). Click to unlock it; until then \(account.name)'s tokens from \(account.issuer) are in memory only.",
                action: (key: "default", label: "Unlock"))
        }
    }

    /// The sign-in the person began from a notice could not begin or open its browser (`why`): nobody else would
    /// hear of it, so the person is told what to do instead (`linkctl login` says why in full and prints the address
    /// to open in any browser).
    static func signInFailed(_ account: String, why: String) -> Effect {
        .notify(
            summary: "Could not sign in to \(account)",
            body:
                "\(why). Run linkctl login \(account) in a terminal: it says what went wrong and prints the address to open in any browser."
        )
    }

    /// The person is told that `account` needs them for `purpose`, unless a notice of that need is up or was within
    /// `repeatSeconds`. A notice of the other need that is up gives way (a signed-out account has nothing to unlock
    /// for; a signed-in one no sign-in to ask for).
    static func asking(
        _ account: AccountKey, _ purpose: Purpose, why: String, atStop: Bool = false, _ turn: inout Turn
    ) -> Transition {
        let stopping = atStop || turn.core.stopWanted
        // An app's account is signed in by the app, never from a notice the person would take for their own.
        if purpose == .signIn, account.app != nil { return Transition() }
        let current = turn.keepers[account]?.notice
        if let current, current.purpose == purpose, current.atStop || !stopping { return Transition() }
        var t = current.map { withdrawing(account, $0.purpose, &turn) } ?? Transition()
        var state = turn.keepers[account] ?? AccountKeeper()
        // At a stop the person is asked whatever was shown before: it is the last chance to keep the set.
        if !stopping, state.noticeAbout == purpose, let at = state.noticeAt, turn.now - at < repeatSeconds {
            return t
        }
        let op = turn.ids.take()
        state.notice = AccountNotice(op: op, key: account, purpose: purpose, atStop: stopping)
        state.noticeAt = turn.now
        state.noticeAbout = purpose
        t.core += [.track(op, .account(account, .notice)), turn.set(account, state)]
        t.effects.append(
            .start(op, .accountNotice(.show(text(account, purpose, why: why, stopping: stopping)))))
        return t
    }

    /// What the account needed is done (it is signed in; the keyring took or gave its tokens): its notice of that
    /// need, if one is up, is withdrawn, and the next of that need is not held back.
    static func withdrawing(_ key: AccountKey, _ purpose: Purpose, _ turn: inout Turn) -> Transition {
        guard var state = turn.keepers[key], let m = state.notice, m.purpose == purpose else { return Transition() }
        let op = m.op
        state.notice = nil
        state.noticeAt = nil
        var t = Transition(core: [.finish(op), turn.set(key, state)])
        if let shown = m.shown { t.effects.append(.closeNotification(shown)) }
        return t
    }

    mutating func handle(_ event: Event, _ turn: inout Turn) -> Transition {
        let op = self.op
        switch (phase, event) {
        case (.showing, .shown(.success(let notification))):
            phase = .shown(notification)
            return Transition()
        case (.showing, .shown(.failure)):
            // No notification server (or it refused): nothing to wait for; callers had their answer already.
            return ending(op, &turn)
        case (.shown, .closed):
            // Dismissed, expired or closed: the next notice waits `repeatSeconds` from this one's.
            return ending(op, &turn)
        case (.unlocking, .unlockAsked(.success(let prompted))):
            // The keyring's dialog is the person's now; `CollectionChanged` says when it is unlocked.
            let name = key.name
            let said =
                prompted ? "Asked the keyring to unlock, for \(name)'s tokens" : "The keyring was already unlocked"
            return ending(op, &turn).logging(LogLine(.info, said))
        case (.unlocking, .unlockAsked(.failure(let e))):
            let name = key.name
            return ending(op, &turn).logging(
                LogLine(.warning, "Could not ask the keyring to unlock, for \(name)'s tokens: \(e.message)"))
        case (.shown(let shown), .invoked(let action, let activationToken, let inputs, let accounts)):
            if purpose == .unlockKeyring, action == "default" {
                // Acted on: it goes, and the keyring is asked for its prompt (this notice's work goes on).
                phase = .unlocking
                return Transition(effects: [.start(op, .accountNotice(.unlockKeyring)), .closeNotification(shown)])
            }
            var t = ending(op, &turn)
            // Acted on: it goes (a server may keep a notification whose action ran).
            t.effects.append(.closeNotification(shown))
            guard action == "default", purpose == .signIn, let account = accounts.first(where: { $0.key == key })
            else { return t }
            // The person's click is theirs: the daemon begins the account's sign-in in their browser, owned by no
            // bus client; the tokens go to the account when it completes.
            var request = SessionRequest()
            request.account = account.name
            request.openBrowser = true
            // The click's token: the browser comes to the front with it (issue 45).
            request.activationToken = activationToken
            do throws(RouterError) { try request.use(account) } catch {
                return t.logging(LogLine(.warning, "Could not begin \(account.name)'s sign-in: \(error.message)"))
            }
            let begin = Begin(request: request, flow: .code, inputs: inputs, caller: Caller.personName)
            t = t.then(begin.proceed(held: nil, &turn))
            t.reply = .none
            return t.logging(LogLine(.info, "Signing in to \(account.name), as the person asked from its notification"))
        // Not what the phase waits on: the server's answers reach a notice only by the id it showed (so none before
        // it is shown, and none once it is withdrawn for the unlock), and the unlock's answer only follows a click.
        case (.showing, .closed), (.showing, .invoked), (.showing, .unlockAsked), (.shown, .shown),
            (.shown, .unlockAsked),
            (.unlocking, .shown), (.unlocking, .closed), (.unlocking, .invoked):
            return Transition()
        }
    }

    /// The notice is over (its id and the time it was shown stay, for `repeatSeconds`).
    private func ending(_ op: OperationID, _ turn: inout Turn) -> Transition {
        var t = Transition(core: [.finish(op)])
        if var state = turn.keepers[key], state.notice?.op == op {
            state.notice = nil
            t.core.append(turn.set(key, state))
        }
        return t
    }
}

/// The notification server's answers about the daemon's notices.
extension Router {

    /// `ActionInvoked(id, action)` from `server`: the notice it belongs to (if `server` showed one of ours as `id`)
    /// takes the person's answer, with what a sign-in needs (gathered by the daemon before it asks).
    public func noticeInvoked(
        _ id: UInt32, action: String, server: String, activationToken: String? = nil, inputs: BeginInputs,
        accounts: [Account], now: Int64
    ) -> Transition {
        guard let op = notice(shown: id, server: server) else { return Transition() }
        return completed(
            op,
            .accountNotice(
                .invoked(action: action, activationToken: activationToken, inputs: inputs, accounts: accounts)),
            now: now)
    }

    /// `NotificationClosed(id, reason)` from `server`: the notice it belongs to is over.
    public func noticeClosed(_ id: UInt32, reason: UInt32, server: String, now: Int64) -> Transition {
        guard let op = notice(shown: id, server: server) else { return Transition() }
        return completed(op, .accountNotice(.closed(reason: reason)), now: now)
    }

    /// Whether `id` from `server` is one of the daemon's notices.
    public func isNotice(_ id: UInt32, server: String) -> Bool { notice(shown: id, server: server) != nil }

    /// The notice `server` shows as `id`.
    private func notice(shown id: UInt32, server: String) -> OperationID? {
        keepers.values.lazy.compactMap(\.notice).first { $0.shown?.isAnswered(id: id, by: server) == true }?.op
    }
}

extension Router {
    /// At start: accounts whose sign-in notice an earlier daemon withdrew as it stopped (`Router.stopping`). Each
    /// still declared and not signed in here is asked for again, so the person's way to sign in outlives a restart
    /// and no click lands on a daemon that is gone.
    public func signInsCarried(_ keys: [AccountKey], accounts: [Account], now: Int64) -> Transition {
        var turn = Turn(self, now: now)
        var t = Transition(ifWriteFails: .keepInMemory)
        for key in keys {
            guard accounts.contains(where: { $0.key == key }), turn.keepers[key]?.tokens == nil else { continue }
            t = t.then(AccountNotice.asking(key, .signIn, why: "it still needs one", &turn))
        }
        return t
    }
}
