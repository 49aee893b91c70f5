/// A sandboxed app asks for one of the person's accounts: the person is asked,
/// naming the app by the id the daemon verified (its sandbox's
/// `/.flatpak-info`, never what the app says of itself) and the account and its
/// provider, with **Allow once**, **Always allow** and **Deny** (Android's
/// AccountManager asks "Allow *App* to access your account?" once and
/// remembers; oidc-agent's `--confirm` names the app by what the app sends).
///
/// One prompt per app and account at a time: later calls of that app for that
/// account wait on it (`waiting`, each held as the account call it is) and
/// hear the same answer. Allow once: the waiting calls go on, as if the
/// account were the app's, this once. Always allow: the grant is written
/// (`remember`), then the same. Deny, a close, no answer within
/// `deadlineSeconds`, or no notification server: `AccessDenied`, and nothing
/// else about the account.
/// What a call asks of the person's account: the account's own token, or a narrower one (a scope, resources, an
/// audience). A prompt names it, a call joins a prompt only for the same, and a grant covers it by its scope.
public struct ConsentTarget: Sendable, Equatable {
    public var scope: String?
    public var resources: [String] = []
    public var audience: String?

    public init() {}

    init(_ r: TokenRequest) {
        scope = r.scope
        resources = r.resources
        audience = r.audience
    }

    /// The prompt's words for it (plain text, checked by `TokenTarget.make` before anyone is asked).
    var words: String {
        var parts: [String] = []
        if let scope { parts.append("scope \(scope)") }
        if !resources.isEmpty { parts.append("resource \(resources.joined(separator: ", "))") }
        if let audience { parts.append("audience \(audience)") }
        return parts.isEmpty ? "a token of" : "a token for " + parts.joined(separator: ", ") + " of"
    }
}

public struct ConsentPrompt: OperationMachine {
    public let app: CallerApp
    public let account: Account
    /// For a host program's call (an account declared `confirm=true`): its bus name, whose calls alone this prompt
    /// answers (host programs share no app id to wait together on), and the program as it names itself.
    public let caller: String?
    public var program: String?
    /// What the calls it answers ask for (all the same): what the person is shown, and an "Always allow" grants.
    public let target: ConsentTarget
    /// The calls waiting on the answer (held as `HeldCall.account`).
    public var waiting: [OperationID]
    /// The server's id for it, once shown.
    public var shown: UInt32?
    /// The person said "Always allow": the grant is being written.
    var remembering = false

    /// Seconds the person has to answer.
    public static let deadlineSeconds: Int64 = 60
    /// Seconds after a Deny during which the app's calls for the account are refused without asking again.
    public static let coolOffSeconds: Int64 = 60
    public static let allowOnce = (key: "allow-once", label: "Allow once")
    public static let allowAlways = (key: "allow-always", label: "Always allow")
    public static let deny = (key: "deny", label: "Deny")

    public enum Work: Sendable, Equatable {
        /// A host program, named for the person: its app id from its systemd scope, else its executable.
        case describe(caller: String)
        case show(AccountNotice.Text, more: [ActionLabel])
        /// The person's time to answer.
        case deadline(milliseconds: Int64)
        case remember(Account, AccountGrant)
    }

    /// An action key and the label the person reads.
    public struct ActionLabel: Sendable, Equatable {
        public let key: String
        public let label: String
    }

    public enum Event: Sendable {
        /// What the host program is called (`describe`).
        case described(String)
        /// The server took it (its id), or there is none.
        case shown(Result<UInt32, RouterError>)
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

    init(app: CallerApp, account: Account, target: ConsentTarget, waiting: [OperationID], caller: String? = nil) {
        self.app = app
        self.account = account
        self.target = target
        self.waiting = waiting
        self.caller = caller
    }

    /// What the person reads. Plain text: the app's id is the sandbox's, the account's name and issuer the
    /// declaration's (no markup is sent, so none is read).
    static func text(_ app: CallerApp, _ account: Account, _ target: ConsentTarget) -> AccountNotice.Text {
        let what = target.words
        return AccountNotice.Text(
            summary: "Allow \(app.id) to use your account \(account.name)?",
            body:
                "The app \(app.id) (\(app.kindName), identified by its sandbox) asks for \(what) your account \(account.name) at \(account.issuer). Until you answer it waits; with no answer in \(deadlineSeconds) s it is refused.",
            action: (key: deny.key, label: deny.label))
    }

    /// What the person reads about a host program's call for an account declared `confirm=true`. The program's name
    /// is its own say (a scope or an executable any program can take), so it is shown as such, and nothing is
    /// remembered for it: each call asks.
    static func hostText(_ program: String, _ account: Account, _ target: ConsentTarget) -> AccountNotice.Text {
        let what = target.words
        return AccountNotice.Text(
            summary: "Allow \(program) to use your account \(account.name)?",
            body:
                "A program of yours, \(program) (as it names itself), asks for \(what) your account \(account.name) at \(account.issuer), which you asked to confirm each time. With no answer in \(deadlineSeconds) s it is refused.",
            action: (key: deny.key, label: deny.label))
    }

    /// `call` of `app` (sandboxed) for the person's `account`, held under `held` (or a new operation): it waits on
    /// the prompt for that app and account, shown now unless one is up.
    static func asking(
        _ call: AccountCall, accounts: [Account], app: CallerApp, caller: String, account: Account,
        target: ConsentTarget, held: OperationID?, _ turn: inout Turn
    ) -> Transition {
        let op = held ?? turn.ids.take()
        var t = Transition(core: [.hold(op, .account(call, accounts: accounts, caller: caller))])
        if held == nil { t.reply = .held(op) }
        let own = app == .host ? caller : nil
        if let (promptOp, prompt) = turn.core.running.lazy.compactMap({ id, m -> (OperationID, ConsentPrompt)? in
            guard case .consent(let p) = m, p.app == app, p.account.key == account.key, p.caller == own,
                p.target == target
            else {
                return nil
            }
            return (id, p)
        }).first {
            var joined = prompt
            joined.waiting.append(op)
            t.core.append(.advance(promptOp, .consent(joined)))
            return t
        }
        let promptOp = turn.ids.take()
        t.core.append(
            .track(
                promptOp,
                .consent(ConsentPrompt(app: app, account: account, target: target, waiting: [op], caller: own)))
        )
        let first: Work =
            own.map { .describe(caller: $0) } ?? .show(text(app, account, target), more: actions(for: app))
        t.effects += [
            .start(promptOp, .consent(first)),
            .start(promptOp, .consent(.deadline(milliseconds: deadlineSeconds * 1000))),
            .log(LogLine(.info, "Asking the person whether \(app.label) may use \(account.name)")),
        ]
        return t
    }

    /// What the person may answer: an app, also "Always allow"; a host program, once or not (its name is its own
    /// say, so nothing is remembered for it).
    static func actions(for app: CallerApp) -> [ActionLabel] {
        [ActionLabel(key: allowOnce.key, label: allowOnce.label)]
            + (app == .host ? [] : [ActionLabel(key: allowAlways.key, label: allowAlways.label)])
    }

    mutating func handle(_ event: Event, op: OperationID, _ turn: inout Turn) -> Transition {
        switch event {
        case .described(let name):
            program = name
            let text = Self.hostText(name, account, target)
            return Transition(effects: [.start(op, .consent(.show(text, more: Self.actions(for: app))))])
        case .shown(.success(let id)):
            shown = id
            return Transition()
        case .shown(.failure(let e)):
            return refusing(
                op, "no one could be asked (\(e.message)); nothing is handed out without the person's yes", &turn)
        case .expired:
            guard !remembering else { return Transition() }
            return refusing(op, "the person did not answer within \(Self.deadlineSeconds) s", &turn)
        case .closed:
            guard !remembering else { return Transition() }
            return refusing(op, "the person closed the prompt without allowing it", &turn)
        case .invoked(let action):
            guard !remembering else { return Transition() }
            switch action {
            case Self.allowOnce.key:
                let said = "The person allowed \(app.label) to use \(account.name) once"
                return allowing(op, &turn).logging(LogLine(.info, said))
            case Self.allowAlways.key where app != .host:
                remembering = true
                let grant = AccountGrant(app: app, scope: target.scope, grantedAt: turn.now)
                var t = Transition(effects: [.start(op, .consent(.remember(account, grant)))])
                if let shown { t.effects.append(.closeNotification(shown)) }
                return t
            default:
                // An app told no is not asked again at once (a host program's next call is another connection's, and
                // asks).
                var t = refusing(op, "the person denied it", &turn)
                if app != .host {
                    var state = turn.accounts[account.key] ?? AccountTokens()
                    state.deniedUntil[app] = turn.now + Self.coolOffSeconds
                    t.core.append(turn.set(account.key, state))
                }
                return t
            }
        case .remembered(let error):
            let (label, name) = (app.label, account.name)
            let said =
                error.map {
                    "The person always allowed \(label) to use \(name), but it could not be remembered (\($0.message)): it is allowed this once"
                } ?? "The person always allowed \(label) to use \(name)"
            return allowing(op, &turn).logging(LogLine(error == nil ? .info : .warning, said))
        }
    }

    /// The waiting calls go on, the account theirs this once.
    private func allowing(_ op: OperationID, _ turn: inout Turn) -> Transition {
        var t = ending(op)
        for waiter in waiting {
            guard case .account(let call, let accounts, let caller)? = turn.core.held[waiter] else { continue }
            t.core.append(.finish(waiter))
            t = t.then(
                call.carryOn(
                    accounts: accounts, app: app, caller: caller, held: waiter, consented: account.key, &turn))
        }
        return t
    }

    /// Every waiting call refused with `AccessDenied`, saying why.
    private func refusing(_ op: OperationID, _ why: String, _ turn: inout Turn) -> Transition {
        var t = ending(op)
        let refusal = RouterError(.accessDenied, "\(account.name) is the person's account, and \(why)")
        for waiter in waiting where turn.core.held[waiter] != nil {
            t.core.append(.finish(waiter))
            t.effects.append(.answer(waiter, .refused(refusal)))
        }
        return t.logging(LogLine(.info, "\(app.label) was refused \(account.name): \(why)"))
    }

    /// The prompt is over: its timer stopped, its notification withdrawn.
    private func ending(_ op: OperationID) -> Transition {
        var t = Transition(core: [.finish(op)], effects: [.cancel(op)])
        if let shown, !remembering { t.effects.append(.closeNotification(shown)) }
        return t
    }
}

/// The notification server's answers about the daemon's consent prompts.
extension Router {
    /// Whether the notification server's `id` is one of the daemon's consent prompts.
    public func isConsentPrompt(_ id: UInt32) -> Bool { consentPrompt(shown: id) != nil }

    /// `ActionInvoked(id, action)` for a consent prompt: the person's answer.
    public func consentAnswered(_ id: UInt32, action: String, now: Int64) -> Transition {
        guard let op = consentPrompt(shown: id) else { return Transition() }
        return completed(op, .consent(.invoked(action: action)), now: now)
    }

    /// `NotificationClosed(id, reason)` for a consent prompt: closed without an answer.
    public func consentClosed(_ id: UInt32, reason: UInt32, now: Int64) -> Transition {
        guard let op = consentPrompt(shown: id) else { return Transition() }
        return completed(op, .consent(.closed(reason: reason)), now: now)
    }

    /// The prompt the server knows as `id`, if it is one of ours.
    func consentPrompt(shown id: UInt32) -> OperationID? {
        running.first { _, m in if case .consent(let p) = m { p.shown == id } else { false } }?.key
    }
}
