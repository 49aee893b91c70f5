import Testing

@testable import LinkRouterCore

/// The one rule for spending a refresh token (issue 46): what holds it back, in which order, and what a flight
/// that has begun still heeds.
@Suite("May a refresh token be spent now")
struct RefreshHoldTests {
    let now: Int64 = 1_700_000_000

    @Test(
        "the stop holds every refresh back; a backoff and a keyring known to be locked hold back a new one only (a flight has passed the backoff and asked the keyring afresh); memory accounts have no keyring to wait for"
    )
    func rule() {
        var state = AccountKeeper(tokens: AccountTokenTests.tokens("a", expiresIn: 60), loaded: true)
        #expect(state.refreshHold(store: .keyring, stopping: false, now: now) == nil)
        #expect(state.refreshHold(store: .keyring, stopping: true, now: now) == .stopping)
        #expect(state.refreshHold(store: .keyring, stopping: true, now: now, flying: true) == .stopping)
        state.retryAt = now + 30
        #expect(state.refreshHold(store: .keyring, stopping: false, now: now) == .backingOff(until: now + 30))
        #expect(state.refreshHold(store: .keyring, stopping: false, now: now + 30) == nil, "its time has come")
        #expect(state.refreshHold(store: .keyring, stopping: false, now: now, flying: true) == nil)
        #expect(state.refreshHold(store: .keyring, stopping: true, now: now) == .stopping, "the stop first")
        state.retryAt = nil
        state.keyringLocked = true
        #expect(state.refreshHold(store: .keyring, stopping: false, now: now) == .keyringLocked)
        #expect(state.refreshHold(store: .memory, stopping: false, now: now) == nil)
        #expect(state.refreshHold(store: .keyring, stopping: false, now: now, flying: true) == nil)
        state.keyringLocked = false
        #expect(state.refreshHold(store: .keyring, stopping: false, now: now) == nil)
    }
}
