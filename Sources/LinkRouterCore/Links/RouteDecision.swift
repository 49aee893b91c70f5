/// What the router decided about one incoming link; the daemon carries it out.
///
/// Every case that changes a session carries the changed copy, so the daemon
/// can persist it before the router takes it in.
public enum RouteDecision: Sendable, Equatable {
    /// The redirect carried a code: the owner gets it from `Wait`.
    case complete(Session)
    /// The provider answered `error=` (or the issuer did not match): the session failed.
    case fail(Session)
    /// The Vipps/MobilePay app returned with a `resume_uri` that passed `ResumePolicy`;
    /// the session's `resume` option says who reopens it (`by`), and `browser` is the one that began the login.
    case resume(Session, resumeURI: String, by: ResumeMode, browser: String?)
    /// The app step came back with neither `resume_uri` nor `error`: keep waiting (threat model R4).
    case acknowledge(Session)
    /// Not a callback: hand the URL, byte for byte, to the real browser.
    case passthrough(String)
    /// Not a callback, but an app's: its scheme, or under its https claim.
    case deliver(url: String, app: LinkApp, rule: String)
    /// A loopback login's way back (`ReturnLink`) clicked: its owner is asked to present its window.
    case returnTo(Session)
    /// Refused; the session it names (if any) is untouched.
    case refuse(RouterError, SessionID?)

    /// The changed session, if the decision changes one.
    public var session: Session? {
        switch self {
        case .complete(let s), .fail(let s), .resume(let s, _, _, _), .acknowledge(let s): return s
        case .passthrough, .refuse, .deliver, .returnTo: return nil
        }
    }
}
