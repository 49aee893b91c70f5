/// A change to what the core tracks besides sessions: taken in with the
/// transition's session changes, never written to the store (it does not
/// outlive the daemon: held calls and timers die with it).
public enum CoreChange: Sendable, Equatable {
    /// A machine waits on a new operation `op` (an id nothing waits under: `Router.apply` asserts it, so two pieces
    /// of work can never share one).
    case track(OperationID, Running)
    /// The machine waiting on `op` goes on to its next state (the same kind of machine: `Router.apply` asserts it).
    case advance(OperationID, Running)
    /// A call is held under `op` until a machine's progress answers it.
    case hold(OperationID, HeldCall)
    /// Nothing waits under `op` any more (its machine is done, its held call answered or dropped).
    case finish(OperationID)
    /// The app behind a bus name, kept until the name leaves the bus.
    case caller(String, CallerApp?)
    /// How a sandboxed app shows to the person, from the desktop entry its sandbox exported (`Router.appFaces`).
    case appFace(CallerApp, AppFace)
    /// What the daemon now knows of an account's tokens.
    case account(AccountKey, AccountKeeper)
    /// Stop to be started again on a replaced executable, once nothing is cut short (`Router.restartIfIdle`).
    case restartWhenIdle
    /// Stop once nothing spent is on its way (`Router.stopIfSettled`): SIGTERM.
    case stopWhenSettled
}
