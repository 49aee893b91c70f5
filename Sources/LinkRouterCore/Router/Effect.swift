/// One thing the daemon must do because of an event. The core names it; the
/// daemon's executor does it, in the order `Transition` documents, after the
/// transition's changes are written and taken in.
public enum Effect: Sendable, Equatable {
    /// Start a browser on a URL (an authorize URL, `resume_uri`, or a web
    /// link passed through), with the token of the hand-off that asked for it
    /// (the app's `activation_token`, the clicked link's, a notification's) so
    /// its window comes to the front. Fallible: if it fails the transition is undone.
    case openBrowser(String, in: BrowserChoice, handOff: ActivationContext = .none)
    /// Send the owner the unicast `ResumeRequested(resume_uri)` signal (`resume=client`). Fallible.
    case requestResume(SessionID, owner: String, resumeURI: String)
    /// Send the owner the unicast `ReturnRequested(context)` signal: the way back from a loopback login's page was
    /// clicked, and `handOff` is the click's token for its window (`ReturnLink`). Fallible.
    case requestReturn(SessionID, owner: String, handOff: ActivationContext)
    /// Begin an operation; its outcome comes back as `Router.completed(id, result)`.
    /// (Boxed, as `answer` is: the two large payloads would make every effect
    /// as large, and a restore or an owner leaving moves tens of thousands.)
    indirect case start(OperationID, Operation)
    /// Stop an operation whose outcome nobody needs any more (a `Wait`'s timer, once answered).
    case cancel(OperationID)
    /// Answer the call held under an operation.
    indirect case answer(OperationID, Transition.Reply)
    /// Drop the call held under an operation, unanswered (its caller left the bus).
    case forget(OperationID)
    /// Stop the session's loopback listener (one answering this very request closes after its page).
    case closeListener(SessionID)
    /// Broadcast `PropertiesChanged` for the session's `Status` (nothing secret).
    case emitStatus(SessionID, SessionStatus)
    /// `AccountChanged` to the clients that may use the account (never a token).
    case accountChanged(AccountNews)
    /// Look at the session again at this wall-clock second (expiry, release of its result, purge).
    case scheduleDeadline(SessionID, at: Int64)
    /// Fold the store's write-ahead log soon: secrets were wiped and must not linger in it.
    case checkpoint
    /// Remember which bus the stored sessions' owners belong to (unique names repeat across buses).
    case recordBusID(String)
    /// Listen for an `ssh -R` forward of the agent (fallible: a socket that cannot be made refuses `ForwardAgent`).
    case openForward(AgentForward)
    /// Close the forwards this bus name made (it left the bus: the `linkctl` running `ssh` is gone).
    case closeForwards(owner: String)
    /// Keep an account's set the keyring did not take where the next daemon finds it, as the daemon stops
    /// (`SetAside`: the runtime directory, 0600).
    case setAside(AccountKey, TokenSet)
    /// Delete an account's set-aside copy: the keyring took the set, or the sign-in ended.
    case dropSetAside(AccountKey)
    /// As the daemon stops: the accounts whose sign-in notice it withdrew, for the next daemon to ask again
    /// (`Router.signInsCarried`).
    case carrySignIns([AccountKey])
    /// Tell the person at the desktop (org.freedesktop.Notifications), best effort: nobody else would hear of it.
    case notify(summary: String, body: String)
    /// Withdraw a notification the daemon showed (`CloseNotification`), from the server that showed it only: what it
    /// asked for happened.
    case closeNotification(ShownNotification)
    case log(LogLine)
    /// Start-up is over: own the bus names, take the inbox, check the handlers.
    case serve
    /// Stop as on SIGTERM, and exit with `Effect.restartExitStatus` so the
    /// daemon starts again on its replaced executable (systemd's
    /// `RestartForceExitStatus=`, or D-Bus activation at the next call).
    case restart
    /// Stop: the drain that SIGTERM began is over (`Router.stopIfSettled`, `Router.stopDeadline`).
    case stop

    /// EX_TEMPFAIL: "stopped to be started again" (the unit restarts on it).
    public static let restartExitStatus: Int32 = 75

    /// The executor's order within step 5. Fallible steps come first (step 3),
    /// so when one fails nothing else has been said to anyone; logging and
    /// serving come last.
    public var rank: Int {
        switch self {
        case .openBrowser, .requestResume, .requestReturn, .openForward: return 0
        case .start, .cancel: return 1
        case .closeListener, .closeForwards: return 2
        case .answer, .forget: return 3
        case .emitStatus, .accountChanged: return 4
        case .scheduleDeadline: return 5
        case .checkpoint, .recordBusID, .setAside, .dropSetAside, .carrySignIns: return 6
        case .notify, .closeNotification, .log: return 7
        case .serve, .restart, .stop: return 8
        }
    }

    /// The held call or running operation this effect ends (an answer, a drop, a cancel), if any: one aimed at a
    /// call already dropped is left out (`Router.ownerGone`).
    public var ends: OperationID? {
        switch self {
        case .answer(let op, _), .forget(let op), .cancel(let op): op
        case .openBrowser, .requestResume, .requestReturn, .start, .closeListener, .emitStatus, .accountChanged,
            .scheduleDeadline, .checkpoint, .recordBusID, .setAside, .dropSetAside, .carrySignIns, .notify,
            .closeNotification, .log, .serve, .restart, .stop, .openForward, .closeForwards:
            nil
        }
    }

    /// Whether a failure of this effect undoes the transition.
    public var undoesOnFailure: Bool {
        switch self {
        case .openBrowser, .requestResume, .requestReturn, .openForward: return true
        case .start, .cancel, .answer, .forget, .closeListener, .emitStatus, .accountChanged, .scheduleDeadline,
            .checkpoint,
            .recordBusID, .setAside, .dropSetAside, .carrySignIns, .notify, .closeNotification, .log, .serve, .restart,
            .stop, .closeForwards:
            return false
        }
    }
}

/// Which browser an `openBrowser` effect means; the daemon resolves it
/// against the desktop's entries when it acts (that is I/O).
public enum BrowserChoice: Sendable, Equatable {
    /// A desktop id chosen when the session began (the app's, or the default then).
    case entry(String)
    /// The browser that began this login, which must still be there (`resume_uri`
    /// needs its cookies); the default browser when the session recorded none.
    case sameAs(String?)
    /// The browser web links go to (the one recorded at install, else the default).
    case web
}
