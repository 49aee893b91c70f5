/// A change to what the core tracks besides sessions: taken in with the
/// transition's session changes, never written to the store (it does not
/// outlive the daemon: held calls and timers die with it).
public enum CoreChange: Sendable, Equatable {
    /// A machine waits on operation `op` (a new one, or the next state of the one there).
    case track(OperationID, Running)
    /// A call is held under `op` until a machine's progress answers it.
    case hold(OperationID, HeldCall)
    /// Nothing waits under `op` any more (its machine is done, its held call answered or dropped).
    case finish(OperationID)
    /// The app behind a bus name, kept until the name leaves the bus.
    case caller(String, CallerApp?)
    /// What the daemon now knows of an account's tokens.
    case account(AccountKey, AccountTokens)
    /// Stop to be started again on a replaced executable, once nothing is cut short (`Router.restartIfIdle`).
    case restartWhenIdle
}
