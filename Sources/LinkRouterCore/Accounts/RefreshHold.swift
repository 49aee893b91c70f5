/// The one answer to "may this account's refresh token be spent now?" (issues 46 and 47): a provider with one-use
/// refresh tokens spends the old one when it answers, so a refresh whose answer cannot be kept loses the sign-in.
/// Every place that would send one asks the account's keeper first (`AccountKeeper.refreshHold`): a caller's
/// `GetToken` (`AccountKeeper`), a refresh ahead of need (`BackgroundRefresh`) and a flight about to send its request
/// (`TokenFlight`).
enum RefreshHold: Equatable {
    /// The daemon is stopping (SIGTERM): there may be no time left to keep the answer.
    case stopping
    /// The provider failed lately: not asked again before `until` (the backoff).
    case backingOff(until: Int64)
    /// The keyring is known to be locked: the new set would have nowhere to go.
    case keyringLocked

}

extension AccountKeeper {
    /// Why this account's refresh token may not be spent now, or nil when it may. `flying`: a flight that has begun
    /// asks (it passed the backoff when it began, and its check stage has just asked the keyring afresh, which
    /// overrides what the keyring said before), so only the stop holds it back.
    func refreshHold(store: Account.Storage?, stopping: Bool, now: Int64, flying: Bool = false) -> RefreshHold? {
        if stopping { return .stopping }
        if flying { return nil }
        if let until = retryAt, now < until { return .backingOff(until: until) }
        if keyringLocked == true, store == .keyring { return .keyringLocked }
        return nil
    }
}
