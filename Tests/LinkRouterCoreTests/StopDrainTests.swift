import Testing

@testable import LinkRouterCore

/// SIGTERM without losing what a provider gave once (issue 34): the stop
/// waits for refreshes and keyring writes under way, spends no refresh
/// token meanwhile, writes again what the keyring has not taken, and at its
/// deadline says what it loses.
@Suite("Stopping: the drain after SIGTERM")
struct StopDrainTests {
    typealias A = AccountTokenTests
    let now = AccountTokenTests.now

    static func asking(_ minValid: UInt32) -> TokenRequest {
        var r = TokenRequest()
        r.minValid = minValid
        return r
    }

    /// An account whose flight is refreshing: the router and the flight's operation.
    func refreshing() throws -> (Router, Account, OperationID) {
        let account = try A.account()
        var router = A.router(":1.1")
        router.apply(core: [.account(account.key, AccountKeeper(tokens: A.tokens("old", expiresIn: 0), loaded: true))])
        let t = router.accountCall(
            .getToken(account.name, TokenRequest()), accounts: [account], caller: ":1.1", now: now)
        let flight = try #require(A.started(t).first?.0)
        router.apply(core: t.core)
        router.apply(core: router.discovered(flight, A.metadata, now: now).core)
        return (router, account, flight)
    }

    @Test(
        "a refresh under way holds the stop until its set is in the keyring; then the stop goes; the counter says so meanwhile"
    )
    func waitsForTheRefresh() throws {
        var (router, account, flight) = try refreshing()
        #expect(router.stopHeldBack == 0 && router.stopIfSettled().effects.isEmpty)
        let asked = router.stopRequested(now: now)
        #expect(asked.core == [.stopWhenSettled] && !asked.effects.contains(.stop))
        router.apply(core: asked.core)
        #expect(router.stopHeldBack == 1 && router.stopIfSettled().effects.isEmpty)
        #expect(router.stopRequested(now: now).effects.isEmpty, "asked twice: once")
        // The provider's answer lands: the set goes to the keyring; still waiting.
        let fresh = A.tokens("new", expiresIn: 3600, refresh: "r2")
        let answered = router.completed(flight, .flight(.refreshed(.success(fresh), used: "r1")), now: now)
        router.apply(core: answered.core)
        #expect(router.stopIfSettled().effects.isEmpty, "the write is under way")
        let written = router.completed(flight, .flight(.written(nil, fresh)), now: now)
        router.apply(core: written.core)
        #expect(router.keepers[account.key]?.tokens == fresh)
        #expect(router.stopHeldBack == 0 && router.stopIfSettled().effects == [.stop])
    }

    @Test(
        "while stopping no refresh token is spent: a flight that has its metadata lands without refreshing; a new GetToken gets a live token with why, or RefreshFailed"
    )
    func spendsNothing() throws {
        let account = try A.account()
        var router = A.router(":1.1")
        router.apply(core: [
            .account(account.key, AccountKeeper(tokens: A.tokens("old", expiresIn: 30), loaded: true))
        ])
        // A flight discovering (nothing spent yet) when the stop comes.
        let t = router.accountCall(
            .getToken(account.name, Self.asking(3600)), accounts: [account], caller: ":1.1", now: now)
        let flight = try #require(A.started(t).first?.0)
        router.apply(core: t.core)
        router.apply(core: router.stopRequested(now: now).core)
        #expect(router.stopIfSettled().effects == [.stop], "a discovery holds nothing back")
        let landed = router.discovered(flight, A.metadata, now: now)
        #expect(!A.started(landed).contains { if case .flight(.refresh) = $0.1 { true } else { false } })
        guard case .token(let live)? = A.answers(landed).values.first else {
            throw A.Failure("the live token was not handed out: \(landed.effects)")
        }
        #expect(live.warning?.contains("stopping") == true)
        router.apply(core: landed.core)
        #expect(router.keepers[account.key]?.failures == 0, "not the provider's fault")
        let next = router.accountCall(
            .getToken(account.name, Self.asking(3600)), accounts: [account], caller: ":1.1", now: now)
        #expect(A.started(next).isEmpty)
        guard case .token(let again) = next.reply else { throw A.Failure("\(next.reply)") }
        #expect(again.warning?.contains("stopping") == true)
        let late = router.accountCall(
            .getToken(account.name, TokenRequest()), accounts: [account], caller: ":1.1", now: now + 60)
        guard case .refused(let e) = late.reply else { throw A.Failure("\(late.reply)") }
        #expect(e.code == .refreshFailed && A.started(late).isEmpty)
    }

    @Test(
        "a set the keyring did not take is written again when the stop comes; locked, the person is asked to unlock it to keep the account signed in and the stop waits for that; at the deadline it is set aside (unsaved=runtime) or said lost (unsaved=drop)"
    )
    func unsavedWrittenAgain() throws {
        for policy in ["runtime", "drop"] {
            var r = AccountRequest()
            r.issuer = A.issuer
            r.clientID = "cli"
            r.unsaved = policy
            let account = try Account.make(name: "work", r, owner: .user)
            var router = A.router(":1.1")
            let set = A.tokens("m", expiresIn: 3600)
            router.apply(core: [.account(account.key, AccountKeeper(tokens: set, loaded: true, unsaved: "locked"))])
            let asked = router.stopRequested(now: now)
            guard case (let write, .flight(.write(account.key, set)))? = A.started(asked).first else {
                throw A.Failure("no write retried: \(asked.effects)")
            }
            router.apply(core: asked.core)
            #expect(router.stopHeldBack == 1)
            let failed = router.completed(
                write, .flight(.written(RouterError(.keyringLocked, "the collection is locked"), set)), now: now)
            let notices = A.started(failed).compactMap {
                if case .accountNotice(.show(let text)) = $0.1 { text.summary } else { nil }
            }
            #expect(notices == ["Unlock the keyring to keep work signed in"], "\(failed.effects)")
            router.apply(core: failed.core)
            // Locked: the stop waits for the person (a CollectionChanged writes the set), until the deadline.
            #expect(router.stopIfSettled(accounts: [account]).effects.isEmpty)
            #expect(router.stopHeldBack == 1)
            let stop = router.stopDeadline(accounts: [account]).effects
            #expect(stop.last == .stop)
            if policy == "runtime" {
                #expect(stop.contains(.setAside(account.key, set)), "\(stop)")
            } else {
                // Dropped by the account's choice: kept nowhere, and the stop warns (the set is in no effect).
                #expect(!stop.contains { if case .setAside = $0 { true } else { false } })
                #expect(stop.contains { if case .log(let l) = $0 { l.priority == .warning } else { false } }, "\(stop)")
                #expect(!"\(stop)".contains(set.refreshToken ?? "-"))
            }
        }
    }

    @Test(
        "a keyring that does not answer at a stop (its write timed out): nothing to wait for, the set is set aside at once and the daemon stops; the next daemon adopts it, writes it to the keyring, and deletes the copy once it is there"
    )
    func hungKeyringSetAside() throws {
        let account = try A.account()
        var router = A.router(":1.1")
        let set = A.tokens("m", expiresIn: 3600, refresh: "r2")
        router.apply(core: [.account(account.key, AccountKeeper(tokens: set, loaded: true, unsaved: "timed out"))])
        let asked = router.stopRequested(now: now)
        guard case (let write, .flight(.write))? = A.started(asked).first else { throw A.Failure("\(asked.effects)") }
        router.apply(core: asked.core)
        let failed = router.completed(
            write, .flight(.written(RouterError(.keyringFailed, "no answer in 10000 ms"), set)), now: now)
        router.apply(core: failed.core)
        let stop = router.stopIfSettled(accounts: [account]).effects
        #expect(stop.contains(.setAside(account.key, set)) && stop.last == .stop, "\(stop)")

        // The next daemon: the set-aside set is adopted over anything the keyring holds, and written there.
        var next = A.router(":1.1")
        let found = next.setAsideFound([(account.key, set)], accounts: [account], now: now)
        guard case (let w2, .flight(.write(account.key, set)))? = A.started(found).first else {
            throw A.Failure("\(found.effects)")
        }
        next.apply(core: found.core)
        #expect(next.keepers[account.key]?.tokens?.refreshToken == "r2")
        #expect(next.keepers[account.key]?.unsaved != nil)
        // Until the keyring takes it, a caller gets it from memory; once it does, the copy is deleted.
        let written = next.completed(w2, .flight(.written(nil, set)), now: now)
        #expect(written.effects.contains(.dropSetAside(account.key)), "\(written.effects)")
        next.apply(core: written.core)
        #expect(next.keepers[account.key]?.unsaved == nil && next.keepers[account.key]?.setAside == false)
        // A set aside for an account no longer declared is deleted, not adopted.
        let gone = A.router(":1.1")
        let orphan = gone.setAsideFound([(account.key, set)], accounts: [], now: now)
        #expect(orphan.effects.contains(.dropSetAside(account.key)) && A.started(orphan).isEmpty)
    }

    @Test("the drain's deadline stops anyway and says what is lost; before a stop was asked it does nothing")
    func deadline() throws {
        var (router, _, _) = try refreshing()
        #expect(router.stopDeadline().effects.isEmpty)
        router.apply(core: router.stopRequested(now: now).core)
        // One refresh under way holds the stop back; at the deadline the daemon stops anyway, with a warning.
        #expect(router.stopHeldBack == 1 && router.whatStoppingLoses().count == 1, "\(router.whatStoppingLoses())")
        let late = router.stopDeadline().effects
        #expect(late.last == .stop)
        #expect(late.contains { if case .log(let l) = $0 { l.priority == .warning } else { false } }, "\(late)")
    }
}

/// A locked keyring (issue 34): no refresh token is spent while a live token can be handed out; when the
/// Secret Service says its collection changed, the accounts whose tokens live there are asked again.
@Suite("A locked keyring")
struct LockedKeyringTests {
    typealias A = AccountTokenTests
    let now = AccountTokenTests.now

    @Test(
        "locked: a live token short of min_valid is handed out with why, nothing asked of the provider; none live: the keyring is asked again, and still locked, the caller hears KeyringLocked with nothing spent (issue 47)"
    )
    func spendsNothingWhileLive() throws {
        let account = try A.account()
        var router = A.router(":1.1")
        var state = AccountKeeper(tokens: A.tokens("old", expiresIn: 30), loaded: true)
        state.keyringLocked = true
        router.apply(core: [.account(account.key, state)])
        let live = router.accountCall(
            .getToken(account.name, TokenRequest()), accounts: [account], caller: ":1.1", now: now)
        guard case .token(let answer) = live.reply else { throw A.Failure("\(live.reply)") }
        #expect(
            answer.tokens.accessToken == "old" && answer.warning == AccountKeeper.lockedWhy && A.requests(live).isEmpty)
        let dead = router.accountCall(
            .getToken(account.name, TokenRequest()), accounts: [account], caller: ":1.1", now: now + 31)
        guard case .held(let held) = dead.reply, let (flight, work) = A.requests(dead).first,
            case .flight(.discover) = work
        else { throw A.Failure("\(dead.reply)") }
        router.apply(core: dead.core)
        let discovered = router.completed(flight, .flight(.metadata(.success(A.metadata))), now: now + 31)
        #expect(A.requests(discovered).map(\.1) == [.flight(.check(account.key))], "asked before anything is spent")
        router.apply(core: discovered.core)
        let still = router.completed(
            flight, .flight(.checked(.failure(RouterError(.keyringLocked, "the default collection is locked")))),
            now: now + 31)
        guard case .refused(let e)? = A.answers(still)[held] else { throw A.Failure("\(still.effects)") }
        #expect(e.code == .keyringLocked && e.message.contains("no refresh token was spent"), "\(e)")
        #expect(!A.requests(still).contains { if case .flight(.refresh) = $0.1 { true } else { false } })
        #expect(still.core.contains(.finish(flight)))
    }

    @Test(
        "the keyring changed: a set kept in memory is written, another keyring account's item read; an account kept in memory only is left alone"
    )
    func askedAgain() throws {
        var router = Router()
        let kept = AccountKey(qualifiedName: "kept", issuer: A.issuer)
        let unsaved = AccountKey(qualifiedName: "unsaved", issuer: A.issuer)
        let memory = AccountKey(qualifiedName: "memory", issuer: A.issuer)
        var locked = AccountKeeper(tokens: A.tokens("a", expiresIn: 3600), loaded: true)
        locked.keyringLocked = true
        var waiting = AccountKeeper(tokens: A.tokens("b", expiresIn: 3600), loaded: true, unsaved: "locked")
        waiting.keyringLocked = true
        router.apply(core: [
            .account(kept, locked), .account(unsaved, waiting),
            .account(memory, AccountKeeper(tokens: A.tokens("c", expiresIn: 3600), loaded: true)),
        ])
        let t = router.keyringChanged(now: now)
        let work = A.started(t).map(\.1)
        #expect(work.contains(.flight(.read(kept))) && work.contains(.flight(.write(unsaved, waiting.tokens!))))
        #expect(work.count == 2, "\(work)")
    }
}
