import Testing

@testable import LinkRouterCore

/// A login is never lost in ordinary ways (issue 47): a refresh token is
/// spent only once the keyring has just said it can take the successor, and
/// a caller that asks as the keyring unlocks gets a refresh, not a refusal
/// the provider never saw.
@Suite("A kept login: the keyring asked before a refresh token is spent")
struct KeptLoginTests {
    typealias A = AccountTokenTests
    let now = AccountTokenTests.now

    static func asking(_ minValid: UInt32) -> TokenRequest {
        var r = TokenRequest()
        r.minValid = minValid
        return r
    }

    /// `router`'s account with `state`, a call for a token with `minValid`, and its flight through discovery: the
    /// held call, the flight, and what discovery led to (applied up to there).
    func discovering(_ router: inout Router, _ account: Account, minValid: UInt32) throws -> (
        OperationID, OperationID, Transition
    ) {
        let t = router.accountCall(
            .getToken(account.name, Self.asking(minValid)), accounts: [account], caller: ":1.1", now: now)
        guard case .held(let held) = t.reply, let (flight, work) = A.requests(t).first, case .flight(.discover) = work
        else { throw A.Failure("not held on a discovery: \(t.reply) \(t.effects)") }
        router.apply(core: t.core)
        let discovered = router.completed(flight, .flight(.metadata(.success(A.metadata))), now: now)
        router.apply(core: discovered.core)
        return (held, flight, discovered)
    }

    static func refreshes(_ t: Transition) -> [String] {
        A.requests(t).compactMap { if case .flight(.refresh(_, let used, _)) = $0.1 { used } else { nil } }
    }

    @Test(
        "the keyring unlocked as a caller asks: the read its CollectionChanged began carries no declaration, and the caller's expired token is refreshed with the caller's (the provider asked), not refused with RefreshFailed"
    )
    func unlockedAsACallerAsks() throws {
        let account = try A.account()
        var router = A.router(":1.1")
        // A new daemon found the keyring locked: nothing read yet.
        var locked = AccountKeeper()
        locked.keyringLocked = true
        router.apply(core: [.account(account.key, locked)])
        // Unlocked: the Secret Service says so, and the account's item is read by a flight of its own.
        let changed = router.keyringChanged(now: now)
        guard let (read, work) = A.requests(changed).first, case .flight(.read) = work else {
            throw A.Failure("no read: \(changed.effects)")
        }
        router.apply(core: changed.core)
        // The caller asks while it flies, and waits on it.
        let call = router.accountCall(
            .getToken(account.name, TokenRequest()), accounts: [account], caller: ":1.1", now: now)
        guard case .held(let held) = call.reply else { throw A.Failure("\(call.reply)") }
        #expect(A.requests(call).isEmpty, "one flight")
        router.apply(core: call.core)
        // The keyring holds a set whose access token has run out (a server refused it before the restart).
        let landed = router.completed(read, .flight(.read(.success(A.tokens("old", expiresIn: -5)))), now: now)
        #expect(A.answers(landed)[held] == nil, "not refused: \(A.answers(landed))")
        #expect(
            A.requests(landed).map(\.1) == [.flight(.discover(issuer: A.issuer))],
            "the refresh begins: \(landed.effects)")
        router.apply(core: landed.core)
        // The keyring just answered: the refresh is sent with no second check.
        let discovered = router.completed(read, .flight(.metadata(.success(A.metadata))), now: now)
        #expect(Self.refreshes(discovered) == ["r1"], "\(discovered.effects)")
    }

    @Test(
        "the keyring locked since it last answered (no signal seen): the check before the refresh finds it so; a live token short of min_valid is handed out with why, no refresh token is spent, the person is asked to unlock, and the account shows locked"
    )
    func lockedUnseen() throws {
        let account = try A.account()
        var router = A.router(":1.1")
        var state = AccountKeeper(tokens: A.tokens("live", expiresIn: 600), loaded: true)
        state.keyringLocked = false
        router.apply(core: [.account(account.key, state)])
        let (held, flight, discovered) = try discovering(&router, account, minValid: 3600)
        #expect(A.requests(discovered).map(\.1) == [.flight(.check(account.key))])
        let answered = router.completed(
            flight, .flight(.checked(.failure(RouterError(.keyringLocked, "the default collection is locked")))),
            now: now)
        guard case .token(let t)? = A.answers(answered)[held] else { throw A.Failure("\(answered.effects)") }
        #expect(t.tokens.accessToken == "live" && t.warning == AccountKeeper.lockedWhy)
        #expect(Self.refreshes(answered).isEmpty)
        #expect(A.started(answered).contains { if case .accountNotice = $0.1 { true } else { false } })
        router.apply(core: answered.core)
        #expect(router.keepers[account.key]?.keyringLocked == true)
        #expect(router.keepers[account.key]?.flight == nil)
        #expect(router.keepers[account.key]?.tokens?.refreshToken == "r1", "nothing spent, nothing forgotten")
    }

    @Test(
        "a keyring that does not answer (its call timed out) or is gone: nothing is spent; with no live token the caller hears the keyring's own error and that no refresh token was spent"
    )
    func silentKeyring() throws {
        for error in [
            RouterError(.keyringFailed, "the Secret Service did not answer in 10000 ms"),
            RouterError(.noKeyring, "no Secret Service is on the session bus"),
        ] {
            let account = try A.account()
            var router = A.router(":1.1")
            router.apply(core: [
                .account(account.key, AccountKeeper(tokens: A.tokens("dead", expiresIn: -1), loaded: true))
            ])
            let (held, flight, _) = try discovering(&router, account, minValid: 60)
            let answered = router.completed(flight, .flight(.checked(.failure(error))), now: now)
            guard case .refused(let e)? = A.answers(answered)[held] else { throw A.Failure("\(answered.effects)") }
            #expect(e.code == error.code && e.message.contains("no refresh token was spent"), "\(e)")
            #expect(Self.refreshes(answered).isEmpty)
            router.apply(core: answered.core)
            #expect(router.keepers[account.key]?.tokens?.refreshToken == "r1")
        }
    }

    @Test(
        "another process refreshed since memory was read: the check finds its newer set in the keyring, and the refresh spends that refresh token, never memory's spent one; a set memory holds that the keyring has not taken wins over the keyring's"
    )
    func newerInTheKeyring() throws {
        let account = try A.account()
        var router = A.router(":1.1")
        router.apply(core: [.account(account.key, AccountKeeper(tokens: A.tokens("old", expiresIn: 10), loaded: true))])
        let (_, flight, _) = try discovering(&router, account, minValid: 3600)
        let elsewhere = A.tokens("other", expiresIn: 20, refresh: "r9")
        let checked = router.completed(flight, .flight(.checked(.success(elsewhere))), now: now)
        #expect(Self.refreshes(checked) == ["r9"], "\(checked.effects)")

        // Memory's set is the newer one when the keyring has not taken it.
        var unsaved = Router()
        unsaved.apply(core: [
            .caller(":1.1", .host),
            .account(
                account.key,
                AccountKeeper(tokens: A.tokens("mine", expiresIn: 10, refresh: "r5"), loaded: true, unsaved: "locked")),
        ])
        let (_, f2, _) = try discovering(&unsaved, account, minValid: 3600)
        let kept = unsaved.completed(f2, .flight(.checked(.success(A.tokens("older", expiresIn: 10)))), now: now)
        #expect(Self.refreshes(kept) == ["r5"], "\(kept.effects)")
    }

    @Test(
        "a caller that waits on a write alone (RejectToken's, written to the keyring): its landing refreshed nothing, so the caller whose token the server refused gets a refresh, not RefreshFailed with nothing asked of the provider"
    )
    func waitsOnARejectionsWrite() throws {
        let account = try A.account()
        var router = A.router(":1.1")
        router.apply(core: [
            .account(account.key, AccountKeeper(tokens: A.tokens("live", expiresIn: 600), loaded: true))
        ])
        let rejected = router.accountCall(
            .reject(account.name, token: "live"), accounts: [account], caller: ":1.1", now: now)
        guard let (write, work) = A.requests(rejected).first, case .flight(.write) = work else {
            throw A.Failure("the rejection is not written: \(rejected.effects)")
        }
        router.apply(core: rejected.core)
        let call = router.accountCall(
            .getToken(account.name, TokenRequest()), accounts: [account], caller: ":1.1", now: now)
        guard case .held(let held) = call.reply else { throw A.Failure("\(call.reply)") }
        router.apply(core: call.core)
        guard case .flight(.write(_, let set)) = work else { return }
        let written = router.completed(write, .flight(.written(nil, set)), now: now)
        #expect(A.answers(written)[held] == nil, "refused with nothing asked: \(A.answers(written))")
        #expect(
            A.requests(written).map(\.1) == [.flight(.discover(issuer: A.issuer))],
            "the refresh begins: \(written.effects)")
    }

    @Test(
        "a refresh sent and not answered (the provider may have rotated): the live token with a warning that says the provider may have signed the account out and what to do if the next refresh is refused, never \"begin a new login\"; the next refresh waits for the backoff and reads the keyring first"
    )
    func sentAndUnanswered() throws {
        let account = try A.account()
        var router = A.router(":1.1")
        router.apply(core: [
            .account(account.key, AccountKeeper(tokens: A.tokens("live", expiresIn: 600), loaded: true))
        ])
        let (held, flight, discovered) = try discovering(&router, account, minValid: 3600)
        #expect(A.requests(discovered).map(\.1) == [.flight(.check(account.key))])
        let checked = router.completed(flight, .flight(.checked(.success(nil))), now: now)
        #expect(Self.refreshes(checked) == ["r1"])
        router.apply(core: checked.core)
        var failure = SessionFailure(
            code: .tokenExchangeFailed,
            message: "the request to the token endpoint at id.example.com was sent and not answered: no answer in time")
        failure.unanswered = true
        let failed = router.completed(flight, .flight(.refreshed(.failure(failure), used: "r1")), now: now)
        guard case .token(let t)? = A.answers(failed)[held] else { throw A.Failure("\(failed.effects)") }
        #expect(t.tokens.accessToken == "live")
        let warning = t.warning ?? ""
        #expect(
            warning.contains("may have acted on the request") && warning.contains("if the next refresh is refused")
                && warning.contains("linkctl login work") && !warning.contains("begin a new login"), "\(warning)")
        router.apply(core: failed.core)
        let retryAt = try #require(router.keepers[account.key]?.retryAt)
        // Within the backoff: answered from memory, nothing sent.
        let soon = router.accountCall(
            .getToken(account.name, Self.asking(3600)), accounts: [account], caller: ":1.1", now: now)
        #expect(Self.refreshes(soon).isEmpty && A.requests(soon).isEmpty, "\(soon.effects)")
        // After it: the keyring is read (checked) before the refresh token is sent again.
        let later = router.accountCall(
            .getToken(account.name, Self.asking(3600)), accounts: [account], caller: ":1.1", now: retryAt + 1)
        guard let (again, work) = A.requests(later).first, case .flight(.discover) = work else {
            throw A.Failure("\(later.effects)")
        }
        router.apply(core: later.core)
        let rediscovered = router.completed(again, .flight(.metadata(.success(A.metadata))), now: retryAt + 1)
        #expect(A.requests(rediscovered).map(\.1) == [.flight(.check(account.key))], "\(rediscovered.effects)")
    }

    @Test(
        "a refresh the provider is slow to answer: after the patience time a caller whose token is still live gets it, saying so, and the refresh goes on; the answer is kept when it lands, and a late patience timer changes nothing"
    )
    func slowRefreshHandsOutTheLiveToken() throws {
        let account = try A.account()
        var router = A.router(":1.1")
        router.apply(core: [
            .account(account.key, AccountKeeper(tokens: A.tokens("live", expiresIn: 600), loaded: true))
        ])
        let (held, flight, discovered) = try discovering(&router, account, minValid: 3600)
        router.apply(core: discovered.core)
        let checked = router.completed(flight, .flight(.checked(.success(nil))), now: now)
        #expect(
            A.started(checked).contains { $0.1 == .flight(.patience(milliseconds: TokenFlight.patienceMilliseconds)) },
            "\(checked.effects)")
        router.apply(core: checked.core)
        let slow = router.completed(flight, .flight(.slow), now: now + 10)
        guard case .token(let t)? = A.answers(slow)[held] else { throw A.Failure("\(slow.effects)") }
        #expect(t.tokens.accessToken == "live" && t.warning?.contains("has not answered its refresh") == true)
        #expect(!slow.core.contains(.finish(flight)), "the refresh goes on")
        router.apply(core: slow.core)
        // The answer lands with nobody waiting: kept (written), never dropped.
        let fresh = A.tokens("new", expiresIn: 3600, refresh: "r2")
        let landed = router.completed(flight, .flight(.refreshed(.success(fresh), used: "r1")), now: now + 20)
        #expect(
            A.requests(landed).contains {
                if case .flight(.write(_, let w)) = $0.1 { w.refreshToken == "r2" } else { false }
            })
        router.apply(core: landed.core)
        // A patience timer that fires once the refresh has landed answers nobody.
        #expect(router.completed(flight, .flight(.slow), now: now + 30).effects.isEmpty)
    }
}
