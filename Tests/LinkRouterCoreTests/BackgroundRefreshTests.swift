import Testing

@testable import LinkRouterCore

/// Refreshing ahead of need (issue 34): a kept set with a refresh token sets
/// a timer for before `min_valid` runs out; when it fires the account's
/// declaration is asked for afresh and its one flight refreshes with nobody
/// waiting; the new set sets the next timer. A sign-out drops it; an
/// `on-demand` account, a removed one, a flight under way or a stop starts nothing.
@Suite("Refreshing ahead of need")
struct BackgroundRefreshTests {
    typealias A = AccountTokenTests
    let now = AccountTokenTests.now

    static func account(refresh: String? = nil, minValid: UInt32 = 60) throws -> Account {
        var r = AccountRequest()
        r.issuer = A.issuer
        r.clientID = "cli"
        r.refresh = refresh
        r.minValid = minValid
        return try Account.make(name: "work", r, owner: .user)
    }

    /// The account's tokens read from the keyring by a caller's flight: the router, with the timer that landing set.
    func landed(_ account: Account, expiresIn: Int64 = 3600) throws -> (Router, OperationID, Int64) {
        var router = A.router(":1.1")
        // A caller that takes any live token, so even a short-lived set lands.
        var anyLive = TokenRequest()
        anyLive.minValid = 0
        let t1 = router.accountCall(.getToken(account.name, anyLive), accounts: [account], caller: ":1.1", now: now)
        let read = try #require(A.started(t1).first?.0)
        router.apply(core: t1.core)
        let t2 = router.completed(read, .flight(.read(.success(A.tokens("a1", expiresIn: expiresIn)))), now: now)
        guard
            case (let timer, .backgroundRefresh(.wait(let ms)))? = A.started(t2).first(where: {
                if case .backgroundRefresh = $0.1 { true } else { false }
            })
        else { throw A.Failure("no timer set: \(t2.effects)") }
        router.apply(core: t2.core)
        #expect(router.keepers[account.key]?.refreshTimer?.op == timer)
        return (router, timer, ms)
    }

    @Test(
        "a kept set sets the timer min_valid and the account's spread before expiry; when it fires the flight refreshes with nobody waiting, and the new set sets the next"
    )
    func refreshesAhead() throws {
        let account = try Self.account()
        var (router, timer, ms) = try landed(account)
        let jitter = BackgroundRefresh.jitter(account.key)
        #expect(
            (0...60).contains(jitter)
                && jitter != BackgroundRefresh.jitter(AccountKey(qualifiedName: "other", issuer: A.issuer)))
        #expect(ms == (3600 - 60 - jitter) * 1000)
        // Due: the declaration is asked for, then the flight starts.
        let due = router.completed(timer, .backgroundRefresh(.due), now: now + 3540 - jitter)
        #expect(A.started(due).map(\.1) == [.backgroundRefresh(.declaration(account.key))])
        router.apply(core: due.core)
        let declared = router.completed(timer, .backgroundRefresh(.declared(account)), now: now + 3540 - jitter)
        guard case (let flight, .flight(.discover))? = A.started(declared).first else {
            throw A.Failure("no flight: \(declared.effects)")
        }
        #expect(A.answers(declared).isEmpty && declared.core.contains(.finish(timer)))
        router.apply(core: declared.core)
        #expect(router.keepers[account.key]?.flight?.op == flight)
        let later = now + 3540 - jitter
        router.apply(core: router.discovered(flight, A.metadata, now: later).core)
        let fresh = A.tokens("a2", expiresIn: 3600 + 3540 - jitter, refresh: "r2")
        router.apply(core: router.completed(flight, .flight(.refreshed(.success(fresh), used: "r1")), now: later).core)
        let written = router.completed(flight, .flight(.written(nil, fresh)), now: later)
        guard case (let next, .backgroundRefresh(.wait(let nextMS)))? = A.started(written).first else {
            throw A.Failure("no next timer: \(written.effects)")
        }
        #expect(nextMS == (3600 - 60 - jitter) * 1000)
        router.apply(core: written.core)
        #expect(
            router.keepers[account.key]?.refreshTimer?.op == next
                && router.keepers[account.key]?.tokens == fresh)
        // A caller right after the old expiry is answered from memory: no request.
        let call = router.accountCall(
            .getToken(account.name, TokenRequest()), accounts: [account], caller: ":1.1", now: now + 3601)
        guard case .token(let answer) = call.reply else { throw A.Failure("\(call.reply)") }
        #expect(answer.tokens.accessToken == "a2" && A.requests(call).isEmpty)
    }

    @Test(
        "nothing starts for an on-demand account, a removed one, one whose flight is under way, or while the daemon stops; a new min_valid moves the timer"
    )
    func startsNothing() throws {
        let account = try Self.account()
        // Removed, or on-demand, by the time it fires.
        for declared in [nil, try Self.account(refresh: "on-demand")] as [Account?] {
            var (router, timer, _) = try landed(account)
            router.apply(core: router.completed(timer, .backgroundRefresh(.due), now: now + 3500).core)
            let t = router.completed(timer, .backgroundRefresh(.declared(declared)), now: now + 3500)
            #expect(A.started(t).isEmpty && t.core.contains(.finish(timer)), "\(t.effects)")
        }
        // Stopping.
        var (stopping, timer, _) = try landed(account)
        stopping.apply(core: stopping.stopRequested(now: now).core)
        stopping.apply(core: stopping.completed(timer, .backgroundRefresh(.due), now: now + 3500).core)
        #expect(A.started(stopping.completed(timer, .backgroundRefresh(.declared(account)), now: now + 3500)).isEmpty)
        // Its min_valid is 10 now: not yet due, the timer is set again for then.
        var (moved, t2, _) = try landed(account)
        moved.apply(core: moved.completed(t2, .backgroundRefresh(.due), now: now + 3500).core)
        let shorter = try Self.account(minValid: 10)
        let again = moved.completed(t2, .backgroundRefresh(.declared(shorter)), now: now + 3500)
        guard case .backgroundRefresh(.wait(let ms))? = A.started(again).first?.1 else {
            throw A.Failure("not set again: \(again.effects)")
        }
        #expect(ms == (90 - BackgroundRefresh.jitter(account.key)) * 1000)
        // An on-demand account's own flight sets no timer.
        let onDemand = try Self.account(refresh: "on-demand")
        var plain = A.router(":1.1")
        let read = plain.accountCall(
            .getToken(onDemand.name, TokenRequest()), accounts: [onDemand], caller: ":1.1", now: now)
        plain.apply(core: read.core)
        let op = try #require(A.started(read).first?.0)
        let kept = plain.completed(op, .flight(.read(.success(A.tokens("a1", expiresIn: 3600)))), now: now)
        #expect(!A.started(kept).contains { if case .backgroundRefresh = $0.1 { true } else { false } })
    }

    @Test("a sign-out drops the timer; a short-lived token is not refreshed sooner than half its life or 10 s")
    func dropsAndFloors() throws {
        let account = try Self.account()
        var (router, timer, _) = try landed(account)
        let out = router.accountCall(.logout(account.name), accounts: [account], caller: ":1.1", now: now)
        #expect(out.effects.contains(.cancel(timer)) && out.core.contains(.finish(timer)), "\(out.effects)")
        router.apply(core: out.core)
        #expect(router.keepers[account.key]?.refreshTimer == nil && router.running[timer] == nil)
        // Four seconds of life: 10 s from now, at the earliest.
        let (_, _, ms) = try landed(account, expiresIn: 4)
        #expect(ms == 10_000)
        // A minute of life and min_valid 60: at half its life.
        let (_, _, half) = try landed(account, expiresIn: 60)
        #expect(half == 30_000)
    }
}
