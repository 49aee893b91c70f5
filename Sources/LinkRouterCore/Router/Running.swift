/// Every kind of work that waits on an operation, with its state: what
/// `Router.running` keeps under each operation's id, so its result finds the
/// machine that started it. The cases match `Operation`'s (what each asks of
/// the daemon) and `Completion`'s (what comes back to it).
public enum Running: Sendable, Equatable {
    case begin(Begin)
    /// A session's login (`CodeLogin`, `DeviceLogin`, `ProviderSignOut`), whose state is the session's.
    /// `idle`: it waits on a timer only (a device login between polls), which a stop loses nothing of.
    case login(SessionID, idle: Bool)
    case delivery(Delivery)
    /// An account's own work (`AccountWork`), whose state its keeper holds (`Router.keepers`).
    case account(AccountKey, AccountWork)
    case revoking(Revoking)
    case identification(Identification)
    case refresh(RefreshCall)
    case restore(Restore)
    case logout(LogoutCall)
    case accountFile(AccountFileWrite)
    /// A client registered for an `AddAccount` with no `client_id` (RFC 7591).
    case registration(ClientRegistration)
    /// A removed account's registered client deleted at the provider (RFC 7592).
    case deregistration(ClientDeregistration)
    /// A `GetToken` for a resource named by its URL, waiting on the resource's metadata (RFC 9728).
    case resourceLookup(ResourceLookup)
    case waitTimer(WaitTimer)
    /// A person asked whether an app may use their account; the calls it answers are held apart (`HeldCall.account`).
    case consent(ConsentPrompt)

    /// The bus name whose call this machine answers (held under its operation), if it answers one.
    var caller: String? {
        switch self {
        case .begin(let m): m.caller
        case .delivery(let m): m.caller
        case .refresh(let m): m.caller
        case .logout(let m): m.caller
        case .accountFile(let m): m.caller
        case .registration(let m): m.caller
        case .deregistration(let m): m.caller
        case .resourceLookup(let m): m.caller
        case .revoking(let m): m.caller
        case .login, .account, .identification, .restore, .waitTimer, .consent: nil
        }
    }

    /// The same work for nobody, when it must go on after its caller left
    /// (`Router.ownerGone`); nil: it is for its caller only, and goes with it.
    /// A sign-out or an account's file change stopped halfway would leave
    /// tokens in the keyring that memory says are gone; a link a person clicked
    /// still reaches its app.
    func forNobody(_ left: String) -> Running? {
        let nobody = left + " (gone)"
        switch self {
        case .logout(let m):
            // The local sign-out finishes; the provider's, which would open a browser for nobody, does not begin.
            return .logout(LogoutCall(account: m.account, caller: nobody, then: nil, kept: m.kept, reports: false))
        case .revoking(var m) where m.caller != nil:
            // The provider's side goes on: the token is revoked whether anyone hears of it or not.
            m.caller = nil
            return .revoking(m)
        case .accountFile(let m):
            return .accountFile(AccountFileWrite(change: m.change, caller: nobody))
        case .delivery(var m):
            m.caller = nil
            return .delivery(m)
        case .registration, .deregistration:
            // A client half registered or half deleted is finished either way: the provider keeps what it made.
            return self
        case .begin, .refresh, .login, .account, .revoking, .identification, .restore, .waitTimer, .consent,
            .resourceLookup:
            return nil
        }
    }

    /// Whether stopping now loses nothing of it: a timer (a `Wait`'s, a device
    /// login's between polls: the stored session polls again); any other
    /// operation (an exchange, a refresh, a keyring write, a link handed to an
    /// app) is work whose result would go with the process.
    var survivesStop: Bool {
        switch self {
        case .login(_, let idle): idle
        // A notice waits on a person: stopping loses only its action (the next call asks again).
        // A person's answer still to come: stopping loses the question only (its calls hear the daemon stopped).
        case .waitTimer, .consent, .account(_, .refreshTimer), .account(_, .notice): true
        case .begin, .delivery, .account(_, .flight), .account(_, .forgetting), .revoking, .identification, .refresh,
            .restore, .logout, .accountFile, .registration, .deregistration, .resourceLookup:
            false
        }
    }

    /// Whether an answer on its way carries what a provider gives once (a
    /// refresh's new tokens, a code's or a device code's tokens) or a set not
    /// yet in the keyring: a SIGTERM waits for it (`Router.stopIfSettled`). A
    /// keyring read, a discovery, a revocation, a timer carry nothing of the kind. An account's flight is asked
    /// of its keeper, which knows its stage (`TokenFlight.landsSecrets`).
    func landsSecrets(_ keepers: [AccountKey: AccountKeeper]) -> Bool {
        switch self {
        case .account(let key, .flight): keepers[key]?.flight?.landsSecrets == true
        case .account(_, .forgetting), .account(_, .refreshTimer), .account(_, .notice): false
        case .login(_, let idle): !idle
        // A client the provider registers once: stopping before it is kept would leave it there, unknown here.
        case .refresh, .registration: true
        case .begin, .delivery, .revoking, .identification, .restore, .logout, .accountFile, .deregistration,
            .waitTimer, .consent, .resourceLookup:
            false
        }
    }

    /// Its kind, for a log line (never what it carries).
    var kind: String {
        switch self {
        case .begin: "begin"
        case .login: "login"
        case .delivery: "delivery"
        case .account(let key, let work): "\(work) of \(key.name)"
        case .revoking: "revocation"
        case .identification: "identification"
        case .refresh: "refresh"
        case .restore: "restore"
        case .logout: "logout"
        case .accountFile: "account file"
        case .registration(let m): "client registration for \(m.name)"
        case .deregistration(let m): "client deletion for \(m.account.name)"
        case .resourceLookup: "resource metadata"
        case .waitTimer: "wait timer"
        case .consent(let m): "consent prompt for \(m.app.label) and \(m.account.name)"
        }
    }

    /// Whether `other` is the same kind of machine (an `advance` may only move its own machine on).
    func isSameKind(as other: Running) -> Bool { kindIndex == other.kindIndex }

    /// One number per kind of machine.
    private var kindIndex: Int {
        switch self {
        case .begin: 0
        case .login: 1
        case .delivery: 2
        case .account: 3
        case .revoking: 4
        case .identification: 5
        case .refresh: 6
        case .restore: 7
        case .logout: 8
        case .accountFile: 9
        case .waitTimer: 10
        case .registration: 11
        case .deregistration: 12
        case .resourceLookup: 14
        case .consent: 13
        }
    }
}
