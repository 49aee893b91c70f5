/// A sandboxed app asks for one of the person's accounts: the person is asked,
/// naming the app by the id the daemon verified (its sandbox's
/// `/.flatpak-info`, never what the app says of itself) and the account and its
/// provider, with **Allow once**, **Always allow** and **Deny** (Android's
/// AccountManager asks "Allow *App* to access your account?" once and
/// remembers; oidc-agent's `--confirm` names the app by what the app sends).
///
/// One prompt per app and account at a time: later calls of that app for that
/// account and the same target wait on it (`waiting`, each held as the account
/// call it is) and hear the same answer; calls for another target wait for it
/// to end (`queued`) and are decided again then (a grant just given may cover
/// them; else the next prompt asks about them). Allow once: the waiting calls
/// go on, as if the account were the app's, this once. Always allow: the grant
/// is written (`remember`), then the same. Deny, a close, no answer within
/// `deadlineSeconds`, an answer the prompt never offered, or no notification
/// server: `AccessDenied`, and nothing else about the account.
///
/// The person's answer is only what the notification server that showed this
/// prompt says about its id, with one of the action keys drawn for this prompt
/// (`Answer.key(nonce:)`: the daemon draws the nonce from the kernel's CSPRNG
/// when it shows the prompt). A program that replaces the notification
/// (`Notify` with its id as `replaces_id`, which GNOME Shell allows anyone)
/// cannot know the keys, so its button grants nothing (issue 44).
public struct ConsentPrompt: OperationMachine {
    public let app: CallerApp
    public let account: Account
    /// For a host program's call (an account declared `confirm=true`): its bus name, whose calls alone this prompt
    /// answers (host programs share no app id to wait together on).
    public let caller: String?
    /// What the calls it answers ask for (all the same, normalised): what the person is shown, and what an
    /// "Always allow" grants.
    public let target: TokenTarget
    /// The calls waiting on the answer (held as `HeldCall.account`).
    public var waiting: [OperationID]
    /// Calls of the same app for the same account that ask for another target: decided again once this prompt ends.
    public var queued: [OperationID] = []
    public private(set) var phase: Phase

    /// Where the question is.
    public enum Phase: Sendable, Equatable {
        /// A host program's prompt: the program's name is being found out (`describe`).
        case describing
        /// `Notify` sent; the server's id not back yet.
        case showing
        /// On the person's screen, with the nonce its action keys end in.
        case asking(ShownNotification, nonce: String)
        /// The person said "Always allow" (the notification is withdrawn): the grant is being written.
        case remembering
    }

    /// Seconds the person has to answer.
    public static let deadlineSeconds: Int64 = 60

    /// What the person may answer.
    public enum Answer: String, Sendable, CaseIterable {
        case allowOnce = "allow-once"
        case allowAlways = "allow-always"
        case deny

        /// The button's words.
        public var label: String {
            switch self {
            case .allowOnce: "Allow once"
            case .allowAlways: "Always allow"
            case .deny: "Deny"
            }
        }

        /// The action key it is shown with on the prompt whose nonce is `nonce`.
        public func key(nonce: String) -> String { rawValue + "-" + nonce }
    }

    /// What the person reads, and the answers offered. Plain text (the daemon escapes it for a server that reads
    /// markup); app-chosen parts (a scope, resources, an audience) in visible quotes.
    public struct Question: Sendable, Equatable {
        public let summary: String
        public let body: String
        public let answers: [Answer]
        /// The app's own icon (an icon-theme name from its exported entry), or nil for linkrouter's.
        public var icon: String? = nil
        /// "Always allow" in this question's words: for a far host, what it covers ("Always for this host").
        public var alwaysLabel: String? = nil

        /// The buttons: each answer's action key on this prompt, and its words.
        public func actions(nonce: String) -> [(key: String, label: String)] {
            answers.map { ($0.key(nonce: nonce), $0 == .allowAlways ? alwaysLabel ?? $0.label : $0.label) }
        }
    }

    /// The server took the prompt (its id and unique name), and the nonce the daemon drew for its action keys.
    public struct Shown: Sendable, Equatable {
        public let notification: ShownNotification
        public let nonce: String

        public init(notification: ShownNotification, nonce: String) {
            self.notification = notification
            self.nonce = nonce
        }
    }

    public enum Work: Sendable, Equatable {
        /// A host program, named for the person: its app id from its systemd scope, else its executable.
        case describe(caller: String)
        /// The daemon draws the nonce, shows the question with each answer's key, and says what it drew.
        case show(Question)
        /// The person's time to answer.
        case deadline(milliseconds: Int64)
        case remember(Account, AccountGrant)
    }

    public enum Event: Sendable {
        /// What the host program is called (`describe`).
        case described(String)
        /// The server took it, or there is none.
        case shown(Result<Shown, RouterError>)
        /// The server that showed it says the person chose `action` (`Router.consentAnswered` checks the server).
        case invoked(action: String)
        case closed(reason: UInt32)
        case expired
        /// The grant was written (nil), or why not.
        case remembered(RouterError?)
    }

    var running: Running { .consent(self) }

    init?(_ running: Running) {
        guard case .consent(let m) = running else { return nil }
        self = m
    }

    init(app: CallerApp, account: Account, target: TokenTarget, waiting: [OperationID], caller: String? = nil) {
        self.app = app
        self.account = account
        self.target = target
        self.waiting = waiting
        self.caller = caller
        phase = caller == nil ? .showing : .describing
    }

    /// Every call it holds: those waiting on its answer and those queued behind it.
    var calls: [OperationID] { waiting + queued }

    /// The notification on screen, if it is up.
    public var shown: ShownNotification? {
        if case .asking(let n, _) = phase { return n }
        return nil
    }

    /// `target` in the prompt's words; what the app chose is quoted, so the person sees where its text begins and
    /// ends.
    static func words(_ target: TokenTarget) -> String {
        guard !target.isOwn else { return "a token of" }
        var parts: [String] = []
        if let scope = target.scope { parts.append("scope “\(scope)”") }
        if !target.resources.isEmpty {
            parts.append(
                (target.resources.count == 1 ? "resource " : "resources ")
                    + target.resources.map { "“\($0)”" }.joined(separator: ", "))
        }
        if let audience = target.audience { parts.append("audience “\(audience)”") }
        return "a token for " + parts.joined(separator: ", ") + " of"
    }

    /// What "Always allow" will cover, said before the person chooses it.
    static func alwaysCovers(_ target: TokenTarget) -> String {
        target.isOwn
            ? "“Always allow” lets it have this account's tokens from now on without asking."
            : "“Always allow” covers only such a token (or a narrower one), never the account's own."
    }

    /// What the person reads about an app. Its id is the sandbox's, the account's name and issuer the declaration's;
    /// `name` is the `Name` of the desktop entry its sandbox exported for that id (the app ships it, so the verified
    /// id always stands beside it), never anything the app sends over the bus.
    /// `hint`: what an oidc-agent client calls itself (`application_hint`), said to be its own say.
    static func question(
        _ app: CallerApp, _ account: Account, _ target: TokenTarget, face: AppFace? = nil, hint: String? = nil
    ) -> Question {
        let calls = hint.map { ", through a program that calls itself “\($0)” (its own say)," } ?? ""
        if case .remote(let host) = app {
            // Nothing vouches for which program on the far host asks: only that it came through this forward.
            let always =
                target.isOwn
                ? "“Always for this host” lets programs on \(host) have this account's tokens from now on without asking (linkctl grants revoke ends it)."
                : "“Always for this host” covers only such a token (or a narrower one), never the account's own."
            var q = Question(
                summary: "Allow a program on \(host) (via ssh) to use your account \(account.name)?",
                body:
                    "A program on \(host)\(calls) asks through the ssh forward of your agent (linkctl agent forward) for \(words(target)) your account \(account.name) at \(account.issuer). Anyone who is root on \(host) can use the forward while it is open. \(always) With no answer in \(deadlineSeconds) s it is refused.",
                answers: [.allowOnce, .allowAlways, .deny])
            q.alwaysLabel = "Always for this host"
            return q
        }
        let who = face?.checkedName.map { "\($0) (\(app.id), \(app.shortKindName))" } ?? app.id
        var q = Question(
            summary: "Allow \(who) to use your account \(account.name)?",
            body:
                "The app \(app.id) (\(app.kindName), identified by its sandbox)\(calls) asks for \(words(target)) your account \(account.name) at \(account.issuer). \(alwaysCovers(target)) With no answer in \(deadlineSeconds) s it is refused.",
            answers: [.allowOnce, .allowAlways, .deny])
        q.icon = face?.checkedIcon
        return q
    }

    /// What the person reads about a host program's call for an account declared `confirm=true`. The program's name
    /// is its own say (a scope or an executable any program can take), so it is shown as such, in the summary only
    /// when it is a plain word, and nothing is remembered for it: each call asks.
    static func hostQuestion(_ program: String, _ account: Account, _ target: TokenTarget) -> Question {
        let plain = (try? AccountName.check(program)) != nil
        return Question(
            summary: "Allow \(plain ? program : "a program") to use your account \(account.name)?",
            body:
                "A program of yours, “\(program)” (as it names itself), asks for \(words(target)) your account \(account.name) at \(account.issuer), which you asked to confirm each time. With no answer in \(deadlineSeconds) s it is refused.",
            answers: [.allowOnce, .deny])
    }

    /// `call` of `app` (sandboxed, or a host program for a `confirm=true` account) for the person's `account` and
    /// `target`, held under `held` (or a new operation): it waits on the prompt for that app and account, shown now
    /// unless one is up (then it joins it, or queues behind it for another target). Prompts are bounded: at most
    /// `Limits.maxPromptsPerApp` of one app and `maxPrompts` in all are up at once; past that the call is refused.
    static func asking(
        _ call: AccountCall, accounts: [Account], app: CallerApp, caller: String, account: Account,
        target: TokenTarget, held: OperationID?, _ turn: inout Turn
    ) -> Transition {
        let own = app == .host ? caller : nil
        let prompts = turn.core.running.compactMap { id, m -> (OperationID, ConsentPrompt)? in
            if case .consent(let p) = m, !turn.ended.contains(id) { (id, p) } else { nil }
        }
        let same = prompts.first { $0.1.app == app && $0.1.account.key == account.key && $0.1.caller == own }
        if same == nil {
            let ofApp = prompts.count { $0.1.app == app && $0.1.caller == own }
            let over: (who: String, count: Int)? =
                ofApp >= turn.limits.maxPromptsPerApp
                ? ("\(app.label) has", ofApp)
                : prompts.count >= turn.limits.maxPrompts ? ("there are", prompts.count) : nil
            if let over {
                let refusal = RouterError(
                    .limitsExceeded,
                    "\(over.who) \(over.count) questions waiting for the person already; ask again once they are answered"
                )
                return Transition().answering(held, .refused(refusal))
            }
        }
        let op = held ?? turn.ids.take()
        var t = Transition(core: [.hold(op, .account(call, accounts: accounts, caller: caller))])
        if held == nil { t.reply = .held(op) }
        if let (promptOp, prompt) = same {
            var joined = prompt
            if prompt.target == target { joined.waiting.append(op) } else { joined.queued.append(op) }
            t.core.append(.advance(promptOp, .consent(joined)))
            return t
        }
        let promptOp = turn.ids.take()
        t.core.append(
            .track(
                promptOp,
                .consent(ConsentPrompt(app: app, account: account, target: target, waiting: [op], caller: own)))
        )
        // A sandboxed app is named as the person knows it, from the desktop entry its sandbox exported
        // (`Router.appFaces`, found when it was identified), beside its verified id.
        let first: Work =
            own.map { .describe(caller: $0) }
            ?? .show(question(app, account, target, face: turn.appFaces[app], hint: call.applicationHint))
        t.effects += [
            .start(promptOp, .consent(first)),
            .start(promptOp, .consent(.deadline(milliseconds: deadlineSeconds * 1000))),
            .log(LogLine(.info, "Asking the person whether \(app.label) may use \(account.name)")),
        ]
        return t
    }

    mutating func handle(_ event: Event, op: OperationID, _ turn: inout Turn) -> Transition {
        switch (phase, event) {
        case (.describing, .described(let name)):
            phase = .showing
            return Transition(effects: [.start(op, .consent(.show(Self.hostQuestion(name, account, target))))])
        case (.showing, .shown(.success(let shown))):
            phase = .asking(shown.notification, nonce: shown.nonce)
            return Transition()
        case (.showing, .shown(.failure(let e))):
            return refusing(
                op, "no one could be asked (\(e.message)); nothing is handed out without the person's yes", &turn)
        case (.describing, .expired), (.showing, .expired), (.asking, .expired):
            return refusing(op, "the person did not answer within \(Self.deadlineSeconds) s", &turn)
        case (.asking, .closed):
            return refusing(op, "the person closed the prompt without allowing it", &turn)
        case (.asking(let shown, let nonce), .invoked(let action)):
            return answered(action, shown: shown, nonce: nonce, op: op, &turn)
        case (.remembering, .remembered(let error)):
            let (label, name) = (app.label, account.name)
            let said =
                error.map {
                    "The person always allowed \(label) to use \(name), but it could not be remembered (\($0.message)): it is allowed this once"
                } ?? "The person always allowed \(label) to use \(name)"
            return allowing(op, &turn).logging(LogLine(error == nil ? .info : .warning, said))
        // Late or out of turn: a deadline or a close while the grant is written, a second answer, a second id.
        case (.remembering, .expired), (.remembering, .closed), (.remembering, .invoked), (.remembering, .shown),
            (.remembering, .described), (.asking, .shown), (.asking, .described), (.asking, .remembered),
            (.showing, .closed), (.showing, .invoked), (.showing, .described), (.showing, .remembered),
            (.describing, .shown), (.describing, .closed), (.describing, .invoked), (.describing, .remembered):
            return Transition()
        }
    }

    /// The person chose `action` on the prompt shown as `shown`: one of the keys drawn for it, or nothing it offered
    /// (another program's notification in its place), which is a no.
    private mutating func answered(
        _ action: String, shown: ShownNotification, nonce: String, op: OperationID, _ turn: inout Turn
    ) -> Transition {
        let offered = app == .host ? [Answer.allowOnce, .deny] : Answer.allCases
        switch offered.first(where: { $0.key(nonce: nonce) == action }) {
        case .allowOnce?:
            let said = "The person allowed \(app.label) to use \(account.name) once"
            return allowing(op, &turn).logging(LogLine(.info, said))
        case .allowAlways?:
            phase = .remembering
            let grant = AccountGrant(app: app, target: target, grantedAt: turn.now)
            return Transition(effects: [.start(op, .consent(.remember(account, grant))), .closeNotification(shown)])
        case .deny?:
            // An app told no is not asked again at once (a host program's next call is another connection's, and
            // asks).
            var t = refusing(op, "the person denied it", &turn)
            if app != .host {
                var state = turn.keepers[account.key] ?? AccountKeeper()
                state.deny(app, now: turn.now)
                t.core.append(turn.set(account.key, state))
            }
            return t
        case nil:
            let (label, name) = (app.label, account.name)
            return refusing(
                op,
                "the prompt was answered with an action it never offered (was it replaced by another notification?)",
                &turn
            ).logging(
                LogLine(
                    .warning,
                    "The consent prompt for \(label) and \(name) was answered with an action it never offered; refused"
                ))
        }
    }

    /// The waiting calls go on, the account theirs this once (for this prompt's target only); the queued ones are
    /// decided again.
    private func allowing(_ op: OperationID, _ turn: inout Turn) -> Transition {
        var t = ending(op, &turn)
        for waiter in waiting {
            guard case .account(let call, let accounts, let caller)? = turn.core.held[waiter] else { continue }
            t.core.append(.finish(waiter))
            t = t.then(
                call.carryOn(
                    accounts: accounts, app: app, caller: caller, held: waiter,
                    consented: AccountCall.Consented(account: account.key, target: target), &turn))
        }
        return t.then(decidingQueued(&turn))
    }

    /// Every waiting call refused with `AccessDenied`, saying why; the queued ones are decided again (after a Deny,
    /// the cool-off refuses them too).
    private func refusing(_ op: OperationID, _ why: String, _ turn: inout Turn) -> Transition {
        var t = ending(op, &turn)
        let refusal = RouterError(.accessDenied, "\(account.name) is the person's account, and \(why)")
        for waiter in waiting where turn.core.held[waiter] != nil {
            t.core.append(.finish(waiter))
            t.effects.append(.answer(waiter, .refused(refusal)))
        }
        return t.logging(LogLine(.info, "\(app.label) was refused \(account.name): \(why)")).then(decidingQueued(&turn))
    }

    /// The calls queued behind this prompt, decided again now that it is over.
    private func decidingQueued(_ turn: inout Turn) -> Transition {
        var t = Transition()
        for waiter in queued {
            guard case .account(let call, let accounts, let caller)? = turn.core.held[waiter] else { continue }
            t.core.append(.finish(waiter))
            t = t.then(call.carryOn(accounts: accounts, app: app, caller: caller, held: waiter, &turn))
        }
        return t
    }

    /// The prompt is over: its timer stopped, its notification withdrawn (and no call decided later in this turn
    /// joins it).
    private func ending(_ op: OperationID, _ turn: inout Turn) -> Transition {
        turn.ended.insert(op)
        var t = Transition(core: [.finish(op)], effects: [.cancel(op)])
        if let shown { t.effects.append(.closeNotification(shown)) }
        return t
    }
}

/// The notification server's answers about the daemon's consent prompts.
extension Router {
    /// Whether `id` from `server` is one of the daemon's consent prompts.
    public func isConsentPrompt(_ id: UInt32, server: String) -> Bool { consentPrompt(id, server: server) != nil }

    /// `ActionInvoked(id, action)` from `server`: the person's answer, if `server` showed that prompt.
    public func consentAnswered(_ id: UInt32, action: String, server: String, now: Int64) -> Transition {
        guard let op = consentPrompt(id, server: server) else { return Transition() }
        return completed(op, .consent(.invoked(action: action)), now: now)
    }

    /// `NotificationClosed(id, reason)` from `server`: closed without an answer.
    public func consentClosed(_ id: UInt32, reason: UInt32, server: String, now: Int64) -> Transition {
        guard let op = consentPrompt(id, server: server) else { return Transition() }
        return completed(op, .consent(.closed(reason: reason)), now: now)
    }

    /// The prompt `server` shows as `id`, if it is one of ours.
    func consentPrompt(_ id: UInt32, server: String) -> OperationID? {
        running.first { _, m in
            if case .consent(let p) = m, let shown = p.shown { shown.isAnswered(id: id, by: server) } else { false }
        }?.key
    }
}
