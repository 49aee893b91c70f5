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
        #expect(RefreshHold.of(state, store: .keyring, stopping: false, now: now) == nil)
        #expect(RefreshHold.of(state, store: .keyring, stopping: true, now: now) == .stopping)
        #expect(RefreshHold.of(state, store: .keyring, stopping: true, now: now, flying: true) == .stopping)
        state.retryAt = now + 30
        #expect(RefreshHold.of(state, store: .keyring, stopping: false, now: now) == .backingOff(until: now + 30))
        #expect(RefreshHold.of(state, store: .keyring, stopping: false, now: now + 30) == nil, "its time has come")
        #expect(RefreshHold.of(state, store: .keyring, stopping: false, now: now, flying: true) == nil)
        #expect(RefreshHold.of(state, store: .keyring, stopping: true, now: now) == .stopping, "the stop first")
        state.retryAt = nil
        state.keyringLocked = true
        #expect(RefreshHold.of(state, store: .keyring, stopping: false, now: now) == .keyringLocked)
        #expect(RefreshHold.of(state, store: .memory, stopping: false, now: now) == nil)
        #expect(RefreshHold.of(state, store: .keyring, stopping: false, now: now, flying: true) == nil)
        state.keyringLocked = false
        #expect(RefreshHold.of(state, store: .keyring, stopping: false, now: now) == nil)
    }
}
