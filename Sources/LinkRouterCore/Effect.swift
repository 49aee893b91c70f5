/// One thing the daemon must do because of an event. The core names it; the
/// daemon's executor does it (`Daemon+Executor.swift`), always in `rank`
/// order, after the transition's changes are written and taken in.
public enum Effect: Sendable, Equatable {
    /// Start a browser on a URL (an authorize URL, `resume_uri`, or a web
    /// link passed through). Fallible: if it fails the transition is undone.
    case openBrowser(String, in: BrowserChoice)
    /// Hand a link to the app that owns it: `org.freedesktop.Application.Open`
    /// (the reply comes later: the caller is answered then) or its `Exec`.
    /// Fallible; a web link the app cannot take goes to the browser instead.
    case deliver(String, to: LinkApp, context: ActivationContext)
    /// Send the owner the unicast `ResumeRequested(resume_uri)` signal (`resume=client`). Fallible.
    case requestResume(SessionID, owner: String, resumeURI: String)
    /// Listen again on a restored loopback session's port. Fallible, but not
    /// undone: a port that cannot be had fails that session (`Router.listenerFailed`).
    case listen(SessionID)
    /// Post the session's code to its token endpoint and verify what comes
    /// back; the outcome arrives later as `Router.exchanged`.
    case exchangeCode(SessionID)
    /// Park the `Wait` call being handled until the session finishes or the timeout (ms, 0 = none) passes.
    case parkWait(SessionID, timeoutMilliseconds: UInt32)
    /// Drop the parked `Wait` calls of a client that left the bus (nobody is there to answer).
    case dropWaits(of: String)
    /// Stop the session's loopback listener (one answering this very request closes after its page).
    case closeListener(SessionID)
    /// Answer every parked `Wait` of the session with what it now holds.
    case answerWaiters(SessionID)
    /// Broadcast `PropertiesChanged` for the session's `Status` (nothing secret).
    case emitStatus(SessionID, SessionStatus)
    /// Look at the session again at this wall-clock second (expiry, release of its result, purge).
    case scheduleDeadline(SessionID, at: Int64)
    /// Fold the store's write-ahead log soon: secrets were wiped and must not linger in it.
    case checkpoint
    case log(LogLine)

    /// The executor's order. Fallible steps come first, so when one fails
    /// nothing else has been said to anyone; logging comes last.
    public var rank: Int {
        switch self {
        case .openBrowser, .requestResume, .listen, .deliver: return 0
        case .parkWait, .dropWaits, .exchangeCode: return 1
        case .closeListener: return 2
        case .answerWaiters: return 3
        case .emitStatus: return 4
        case .scheduleDeadline: return 5
        case .checkpoint: return 6
        case .log: return 7
        }
    }

    /// Whether a failure of this effect undoes the transition.
    public var undoesOnFailure: Bool {
        switch self {
        case .openBrowser, .requestResume, .deliver: return true
        default: return false
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
