/// Work the daemon does that waits on something (a provider, an app, the
/// bus, the keyring, a timer), by the machine that asks for it: each case is
/// one machine's own `Work`, whose result comes back as that machine's own
/// `Event` (`Completion`). The effect `.start(id, operation)` begins it; the
/// daemon's `start` runs each kind of work by the component that owns it.
public enum Operation: Sendable, Equatable {
    case begin(Begin.Work)
    case code(CodeLogin.Work)
    case device(DeviceLogin.Work)
    case signOut(ProviderSignOut.Work)
    case delivery(Delivery.Work)
    case flight(TokenFlight.Work)
    /// An ended sign-in's keyring item deleted (`AccountWork.forgetting`).
    case forgetting(AccountKey)
    case revoking(Revoking.Work)
    case identification(Identification.Work)
    case refresh(RefreshCall.Work)
    case restore(Restore.Work)
    case logout(LogoutCall.Work)
    case accountFile(AccountFileWrite.Work)
    case registration(ClientRegistration.Work)
    case deregistration(ClientDeregistration.Work)
    case resourceLookup(ResourceLookup.Work)
    case waitTimer(WaitTimer.Work)
    case backgroundRefresh(BackgroundRefresh.Work)
    case accountNotice(AccountNotice.Work)
    case consent(ConsentPrompt.Work)
}
