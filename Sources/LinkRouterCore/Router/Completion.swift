/// What an operation came to: one event of the machine that started it, and
/// only of that machine (`Router.completed` hands it over).
public enum Completion: Sendable {
    case begin(Begin.Event)
    case code(CodeLogin.Event)
    case device(DeviceLogin.Event)
    case signOut(ProviderSignOut.Event)
    case delivery(Delivery.Event)
    case flight(TokenFlight.Event)
    /// The item deleted (nil), or why not: nothing waits on it.
    case forgetting(RouterError?)
    case revoking(Revoking.Event)
    case identification(Identification.Event)
    case refresh(RefreshCall.Event)
    case restore(Restore.Event)
    case logout(LogoutCall.Event)
    case accountFile(AccountFileWrite.Event)
    case registration(ClientRegistration.Event)
    case deregistration(ClientDeregistration.Event)
    case resourceLookup(ResourceLookup.Event)
    case waitTimer(WaitTimer.Event)
    case backgroundRefresh(BackgroundRefresh.Event)
    case accountNotice(AccountNotice.Event)
    case consent(ConsentPrompt.Event)
}
