import Testing

@testable import LinkRouterCore

/// What a refresh's answer means for the account (issue 34): a provider that
/// refuses a refresh token with any 4xx but 408 and 429 has ended the sign-in
/// (Glewlwyd answers a reused one-use token with an empty 400); 408, 429, 5xx
/// and no answer are passing trouble; the daemon's own refusals are neither.
/// And the rest of what a refresh must keep: the same subject, a rejection
/// made while a write is under way, and one id for each piece of work.
@Suite("Refresh refusals, subjects and rejections")
struct RefreshRefusalTests {
    typealias A = AccountTokenTests
    let now = AccountTokenTests.now

    /// A flight for `account` refreshing a token with no life left, up to the provider's answer: the router, the
    /// flight's operation and the held caller's.
    func refreshing(_ account: Account, kept: TokenSet = A.tokens("old", expiresIn: 0)) throws
        -> (Router, OperationID, OperationID)
    {
        var router = A.router(":1.1")
        router.apply(core: [.account(account.key, AccountKeeper(tokens: kept, loaded: true))])
        let t = router.accountCall(
            .getToken(account.name, TokenRequest()), accounts: [account], caller: ":1.1", now: now)
        let wait = try #require(t.held, "not held: \(t.reply)")
        let flight = try #require(A.started(t).first?.0, "no flight")
        router.apply(core: t.core)
        router.apply(core: router.discovered(flight, A.metadata, now: now).core)
        return (router, flight, wait)
    }

    /// `account`'s refresh answered with `failure` ("r1" spent): the router before the answer, the answer's
    /// transition, the flight and the held caller's operation.
    func failedRefresh(_ account: Account, _ failure: SessionFailure) throws
        -> (router: Router, t: Transition, flight: OperationID, wait: OperationID)
    {
        let (router, flight, wait) = try refreshing(account)
        let t = router.completed(flight, .flight(.refreshed(.failure(failure), used: "r1")), now: now)
        return (router, t, flight, wait)
    }

    @Test(
        "any 4xx but 408 and 429, with or without a body, refuses the refresh token: the keyring is read again, then the sign-in ends; invalid_grant whatever the status",
        arguments: [
            (400, nil), (401, nil), (403, nil), (400, "invalid_request"), (401, "invalid_client"),
            (500, "invalid_grant"),
        ] as [(Int, String?)])
    func refused(_ status: Int, _ error: String?) throws {
        let account = try A.account()
        var (router, t, flight, wait) = try failedRefresh(
            account,
            SessionFailure(
                code: .tokenExchangeFailed, providerError: error, message: "the token endpoint refused the request",
                httpStatus: status))
        guard case .flight(.reread(account.key, "r1", let why))? = A.started(t).first?.1 else {
            throw A.Failure("not read again after HTTP \(status): \(t.effects)")
        }
        #expect(why.code == .notSignedIn && why.message.contains(error ?? "HTTP \(status)"), "\(why.message)")
        router.apply(core: t.core)
        let end = router.completed(
            flight, .flight(.reread(.success(A.tokens("old", expiresIn: 0)), used: "r1", refusal: why)), now: now)
        guard case .refused(let e)? = A.answers(end)[wait] else { throw A.Failure("not answered: \(end.effects)") }
        #expect(e.code == .notSignedIn && e.message.contains("linkctl login work"))
        #expect(A.requests(end).map(\.1) == [.forgetting(account.key)], "the spent token is not tried again")
        #expect(A.started(end).contains { if case .accountNotice = $0.1 { true } else { false } }, "the person is told")
        router.apply(core: end.core)
        #expect(router.keepers[account.key]?.tokens == nil && router.keepers[account.key]?.failures == 0)
        // The delete ends with its answer, whatever the keyring said; nothing waits on it.
        let (forget, _) = try #require(A.requests(end).first)
        #expect(router.running[forget] == .account(account.key, .forgetting))
        let forgotten = router.completed(forget, .forgetting(RouterError(.keyringFailed, "gone")), now: now)
        #expect(forgotten.core == [.finish(forget)] && forgotten.effects.isEmpty)
    }

    @Test(
        "408, 429, 5xx and no answer are passing: the tokens are kept and the next refresh waits; nothing is read again or deleted",
        arguments: [408, 429, 500, 502, 503, nil] as [Int?])
    func passing(_ status: Int?) throws {
        let account = try A.account()
        var (router, t, _, wait) = try failedRefresh(
            account, SessionFailure(code: .tokenExchangeFailed, message: "no luck", httpStatus: status))
        guard case .refused(let e)? = A.answers(t)[wait] else { throw A.Failure("not answered: \(t.effects)") }
        #expect(e.code == .refreshFailed && e.message.contains("tried again after 5 s"), "\(e.message)")
        #expect(A.requests(t).isEmpty)
        router.apply(core: t.core)
        #expect(router.keepers[account.key]?.tokens != nil && router.keepers[account.key]?.failures == 1)
    }

    @Test(
        "a refused DPoP proof (invalid_dpop_proof, an unmet use_dpop_nonce) is not a refused refresh token, whatever the 4xx: passing, the tokens kept",
        arguments: [
            (403, "invalid_dpop_proof"), (400, "invalid_dpop_proof"), (401, "invalid_dpop_proof"),
            (400, "use_dpop_nonce"),
        ]
            as [(Int, String)])
    func refusedProof(_ status: Int, _ error: String) throws {
        let account = try A.account()
        var (router, t, _, wait) = try failedRefresh(
            account,
            SessionFailure(
                code: .tokenExchangeFailed, providerError: error, message: "the token endpoint refused the proof",
                httpStatus: status))
        guard case .refused(let e)? = A.answers(t)[wait] else { throw A.Failure("not answered: \(t.effects)") }
        #expect(e.code == .refreshFailed, "\(e.message)")
        #expect(A.requests(t).isEmpty, "nothing read again or deleted")
        router.apply(core: t.core)
        #expect(router.keepers[account.key]?.tokens != nil && router.keepers[account.key]?.failures == 1)
    }

    @Test(
        "the daemon's own refusal (no room for another request) is not the provider's fault: answered, kept, and the next call refreshes at once",
        arguments: [RouterError.Code.limitsExceeded, .internalError])
    func local(_ code: RouterError.Code) throws {
        let account = try A.account()
        var (router, t, _, wait) = try failedRefresh(
            account, SessionFailure(code: code, message: "64 requests to providers are already in flight"))
        guard case .refused(let e)? = A.answers(t)[wait] else { throw A.Failure("not answered: \(t.effects)") }
        #expect(e.code == .refreshFailed && e.message.contains("at the next call"), "\(e.message)")
        router.apply(core: t.core)
        let state = try #require(router.keepers[account.key])
        #expect(state.failures == 0 && state.retryAt == nil && state.tokens != nil)
        // The next call asks the provider again at once.
        let next = router.accountCall(
            .getToken(account.name, TokenRequest()), accounts: [account], caller: ":1.1", now: now + 1)
        #expect(A.started(next).contains { if case .flight(.discover) = $0.1 { true } else { false } })
    }

    @Test(
        "a refreshed ID token that names another subject is not this sign-in: nothing of it is kept or handed out, it is revoked, the keyring forgets the account"
    )
    func otherSubject() throws {
        var r = AccountRequest()
        r.issuer = A.issuer
        r.clientID = "cli"
        let account = try Account.make(name: "work", r, owner: .user)
        var kept = A.tokens("old", expiresIn: 0)
        kept.idToken = "id-old"
        kept.subject = "alice"
        var (router, flight, wait) = try refreshing(account, kept: kept)
        var fresh = A.tokens("new", expiresIn: 3600, refresh: "r2")
        fresh.idToken = "id-new"
        fresh.subject = "mallory"
        let t = router.completed(flight, .flight(.refreshed(.success(fresh), used: "r1")), now: now)
        guard case .refused(let e)? = A.answers(t)[wait] else { throw A.Failure("not answered: \(t.effects)") }
        #expect(e.code == .notSignedIn && e.message.contains("another subject"), "\(e.message)")
        let started = A.started(t).map(\.1)
        #expect(started.contains(.forgetting(account.key)), "\(started)")
        #expect(started.contains { if case .revoking = $0 { true } else { false } }, "the set is revoked: \(started)")
        #expect(!started.contains { if case .flight(.write) = $0 { true } else { false } }, "nothing is written")
        router.apply(core: t.core)
        #expect(router.keepers[account.key]?.tokens == nil)
        // The same subject again is a refresh like any other.
        let (same, f2, _) = try refreshing(account, kept: kept)
        fresh.subject = "alice"
        let ok = same.completed(f2, .flight(.refreshed(.success(fresh), used: "r1")), now: now)
        #expect(A.started(ok).map(\.1) == [.flight(.write(account.key, fresh))])
    }

    @Test(
        "a token a server refused while its set was being written again stays refused when the write lands: the next GetToken refreshes"
    )
    func rejectedDuringWrite() throws {
        var router = A.router(":1.1")
        let account = try A.account()
        let set = A.tokens("m", expiresIn: 3600)
        router.apply(core: [.account(account.key, AccountKeeper(tokens: set, loaded: true, unsaved: "locked"))])
        // Served from memory; the write is tried again.
        let served = router.accountCall(
            .getToken(account.name, TokenRequest()), accounts: [account], caller: ":1.1", now: now)
        guard case .token = served.reply, case (let write, .flight(.write(_, let writing)))? = A.started(served).first
        else { throw A.Failure("no write retried: \(served.effects)") }
        router.apply(core: served.core)
        // git's `erase` after a 401, while the write is under way.
        let rejected = router.accountCall(
            .reject(account.name, token: "m"), accounts: [account], caller: ":1.1", now: now)
        router.apply(core: rejected.core)
        #expect(router.keepers[account.key]?.tokens?.expiresAt == 0)
        router.apply(core: router.completed(write, .flight(.written(nil, writing)), now: now).core)
        #expect(router.keepers[account.key]?.tokens?.expiresAt == 0, "the landed write undid the rejection")
        #expect(router.keepers[account.key]?.unsaved == nil)
        let next = router.accountCall(
            .getToken(account.name, TokenRequest()), accounts: [account], caller: ":1.1", now: now)
        #expect(
            next.held != nil && A.started(next).contains { if case .flight(.discover) = $0.1 { true } else { false } })
    }

    @Test(
        "dpop=require with tokens kept unbound: the keyring's delete and the revocation are two pieces of work with two ids, and neither takes a live one"
    )
    func oneIDEach() throws {
        var r = AccountRequest()
        r.issuer = A.issuer
        r.clientID = "cli"
        r.dpop = "require"
        let account = try Account.make(name: "bound", r, owner: .user)
        var router = A.router(":1.1")
        let t1 = router.accountCall(
            .getToken(account.name, TokenRequest()), accounts: [account], caller: ":1.1", now: now)
        let read = try #require(A.started(t1).first?.0)
        router.apply(core: t1.core)
        let t2 = router.completed(read, .flight(.read(.success(A.tokens("unbound", expiresIn: 3600)))), now: now)
        let tracked = t2.core.compactMap { if case .track(let op, _) = $0 { op } else { nil } }
        // The keyring's delete, the revocation, and the person's sign-in notice.
        #expect(tracked.count == 3 && Set(tracked).count == 3, "\(t2.core)")
        #expect(!tracked.contains { router.isLive($0) && $0 != read }, "a live id was taken")
        #expect(Set(A.started(t2).map(\.0)) == Set(tracked))
        // Taken in without tripping the assertion that a track never overwrites a live operation.
        router.apply(core: t2.core)
        #expect(router.running.count == 3)
    }
}
