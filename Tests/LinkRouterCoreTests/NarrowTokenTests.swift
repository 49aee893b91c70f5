import Testing

@testable import LinkRouterCore

/// Narrower tokens (issue 37): a subset of the account's scope, resources,
/// an audience; each kept in memory for its target, got with the account's
/// one refresh token, so a rotating refresh token stays one chain.
@Suite("Narrower tokens")
struct NarrowTokenTests {
    typealias A = AccountTokenTests

    /// A router whose account is signed in with scope `openid profile email` and a token good for an hour.
    func signedIn() throws -> (Router, Account) {
        var router = A.router(":1.1")
        var r = AccountRequest()
        r.issuer = A.issuer
        r.clientID = "cli"
        r.scope = "openid profile email"
        let account = try Account.make(name: "work", r, owner: .user)
        var tokens = A.tokens("own", expiresIn: 3600)
        tokens.scope = "openid profile email"
        router.apply(core: [.account(account.key, AccountKeeper(tokens: tokens, loaded: true))])
        return (router, account)
    }

    func request(scope: String? = nil, resources: [String] = [], audience: String? = nil) -> TokenRequest {
        var r = TokenRequest()
        r.scope = scope
        r.resources = resources
        r.audience = audience
        return r
    }

    /// A call for `request`, its held id, and the flight's refresh once the metadata is there: (flight, target).
    func refreshing(_ router: inout Router, _ account: Account, _ request: TokenRequest) throws -> (
        OperationID, OperationID, TokenTarget
    ) {
        let t = router.accountCall(.getToken("work", request), accounts: [account], caller: ":1.1", now: A.now)
        guard case .held(let wait) = t.reply, let (flight, _) = A.requests(t).first else {
            throw A.Failure("not held: \(t.reply)")
        }
        router.apply(core: t.core)
        let m = router.discovered(flight, A.metadata, now: A.now)
        guard case .flight(.refresh(_, let used, let target))? = A.requests(m).first?.1 else {
            throw A.Failure("no refresh: \(m.effects)")
        }
        #expect(used == "r1")
        router.apply(core: m.core)
        return (wait, flight, target)
    }

    func narrowAnswer(_ access: String, scope: String?, refresh: String?) -> TokenSet {
        TokenSet(
            accessToken: access, tokenType: "Bearer", expiresAt: A.now + 600, refreshToken: refresh, idToken: nil,
            scope: scope)
    }

    @Test(
        "a scope beyond the account's, a resource that is no absolute URI, an ID token with a scope: refused, nothing started"
    )
    func refusals() throws {
        let (router, account) = try signedIn()
        for (r, words) in [
            (request(scope: "openid admin"), "admin is not within work's"),
            (request(resources: ["api.example.com"]), "resource must be an absolute URI"),
            (request(resources: ["https://api.example.com/#x"]), "without a fragment"),
        ] {
            let t = router.accountCall(.getToken("work", r), accounts: [account], caller: ":1.1", now: A.now)
            guard case .refused(let e) = t.reply else { throw A.Failure("\(t.reply)") }
            #expect(e.code == .invalidArgument && e.message.contains(words), "\(e)")
            #expect(A.requests(t).isEmpty)
        }
        var id = request(scope: "openid")
        id.idToken = true
        guard
            case .refused(let e) = router.accountCall(
                .getToken("work", id), accounts: [account], caller: ":1.1", now: A.now
            ).reply
        else { throw A.Failure("id token with a scope answered") }
        #expect(e.code == .invalidArgument)
    }

    @Test(
        "--scope openid: a refresh asking for it; the answer kept for that target, the account's own untouched; asked again, from memory"
    )
    func narrowed() throws {
        var (router, account) = try signedIn()
        let (wait, flight, target) = try refreshing(&router, account, request(scope: "profile openid openid"))
        #expect(target.scope == "openid profile" && target.formFields.map(\.0) == ["scope"])
        let t = router.completed(
            flight,
            .flight(.refreshed(.success(narrowAnswer("narrow", scope: "openid profile", refresh: nil)), used: "r1")),
            now: A.now)
        guard case .token(let answer)? = A.answers(t)[wait] else { throw A.Failure("\(t.effects)") }
        #expect(answer.tokens.accessToken == "narrow" && answer.tokens.scope == "openid profile")
        #expect(answer.target == target && answer.tokens.refreshToken == nil)
        #expect(A.requests(t).isEmpty, "no write: the refresh token did not change")
        router.apply(core: t.core)
        let state = try #require(router.keepers[account.key])
        #expect(state.tokens?.accessToken == "own" && state.tokens?.refreshToken == "r1" && state.flight == nil)
        let again = router.accountCall(
            .getToken("work", request(scope: "openid profile")), accounts: [account], caller: ":1.1", now: A.now + 60)
        guard case .token(let cached) = again.reply else { throw A.Failure("\(again.reply)") }
        #expect(cached.tokens.accessToken == "narrow" && A.requests(again).isEmpty)
        // The account's own is still its own.
        let own = router.accountCall(.getToken("work", TokenRequest()), accounts: [account], caller: ":1.1", now: A.now)
        guard case .token(let mine) = own.reply else { throw A.Failure("\(own.reply)") }
        #expect(mine.tokens.accessToken == "own")
    }

    @Test(
        "a rotated refresh token from a narrow request is the account's new one, written before the narrow token is handed out"
    )
    func oneChain() throws {
        var (router, account) = try signedIn()
        let (wait, flight, _) = try refreshing(&router, account, request(resources: ["https://api.example.com/"]))
        let t = router.completed(
            flight, .flight(.refreshed(.success(narrowAnswer("narrow", scope: nil, refresh: "r2")), used: "r1")),
            now: A.now)
        #expect(A.answers(t)[wait] == nil, "handed out before the new refresh token was kept")
        guard case .flight(.write(_, let written))? = A.requests(t).first?.1 else { throw A.Failure("\(t.effects)") }
        #expect(written.refreshToken == "r2" && written.accessToken == "own")
        router.apply(core: t.core)
        let landed = router.completed(flight, .flight(.written(nil, written)), now: A.now)
        guard case .token(let answer)? = A.answers(landed)[wait] else { throw A.Failure("\(landed.effects)") }
        #expect(answer.tokens.accessToken == "narrow" && answer.target.resources == ["https://api.example.com/"])
        router.apply(core: landed.core)
        #expect(router.keepers[account.key]?.tokens?.refreshToken == "r2")
    }

    @Test(
        "a provider that answers a narrow request with a wider scope: the waiter hears so and gets nothing; the rotated refresh token is kept; the same target asked again is refused at once with what to do, the scope as asked, and no refresh token spent"
    )
    func wider() throws {
        var (router, account) = try signedIn()
        let (wait, flight, _) = try refreshing(&router, account, request(scope: "openid"))
        let t = router.completed(
            flight,
            .flight(
                .refreshed(.success(narrowAnswer("wide", scope: "openid profile email", refresh: "r2")), used: "r1")),
            now: A.now)
        guard case .refused(let e)? = A.answers(t)[wait] else { throw A.Failure("\(t.effects)") }
        #expect(e.code == .tokenExchangeFailed && e.message.contains("does not narrow"), "\(e.message)")
        guard case .flight(.write(_, let written))? = A.requests(t).first?.1 else { throw A.Failure("\(t.effects)") }
        #expect(written.refreshToken == "r2")
        router.apply(core: t.core)
        router.apply(core: router.completed(flight, .flight(.written(nil, written)), now: A.now).core)
        let state = try #require(router.keepers[account.key])
        #expect(state.narrow.isEmpty && state.tokens?.refreshToken == "r2")
        // Asked again: refused at once with what to do, nothing spent.
        let again2 = router.accountCall(
            .getToken("work", request(scope: "openid")), accounts: [account], caller: ":1.1", now: A.now)
        guard case .refused(let e3) = again2.reply else { throw A.Failure("\(again2.reply)") }
        #expect(A.requests(again2).isEmpty, "\(again2.effects)")
        #expect(
            e3.message.contains("scope \"openid\" with the wider") && e3.message.contains("not asked again")
                && e3.message.contains("linkctl token work"), "\(e3.message)")
        // The same without a new refresh token (the flight lands in the same turn): the waiter hears it once.
        var (again, _) = try signedIn()
        let (wait2, flight2, _) = try refreshing(&again, account, request(scope: "openid"))
        let t2 = again.completed(
            flight2,
            .flight(.refreshed(.success(narrowAnswer("wide", scope: "openid profile", refresh: nil)), used: "r1")),
            now: A.now)
        let heard = t2.effects.filter { if case .answer(wait2, _) = $0 { true } else { false } }
        guard heard.count == 1, case .answer(_, .refused(let e2)) = heard[0] else { throw A.Failure("\(t2.effects)") }
        #expect(e2.code == .tokenExchangeFailed && t2.core.contains(.finish(flight2)))
    }

    @Test("two targets waiting on one flight: refreshed one after the other with the refresh token each answer leaves")
    func twoTargets() throws {
        var (router, account) = try signedIn()
        let (first, flight, a) = try refreshing(&router, account, request(scope: "openid"))
        let second = router.accountCall(
            .getToken("work", request(audience: "api")), accounts: [account], caller: ":1.1", now: A.now)
        guard case .held(let other) = second.reply else { throw A.Failure("\(second.reply)") }
        #expect(A.requests(second).isEmpty, "one flight per account")
        router.apply(core: second.core)
        let t = router.completed(
            flight, .flight(.refreshed(.success(narrowAnswer("n1", scope: "openid", refresh: nil)), used: "r1")),
            now: A.now)
        guard case .token(let one)? = A.answers(t)[first] else { throw A.Failure("\(t.effects)") }
        #expect(one.tokens.accessToken == "n1" && A.answers(t)[other] == nil)
        // Each refresh asks the keyring first (nothing was written since the last answer).
        guard case .flight(.check)? = A.requests(t).first?.1 else { throw A.Failure("no check: \(t.effects)") }
        router.apply(core: t.core)
        let checked = router.completed(
            flight, .flight(.checked(.success(router.keepers[account.key]?.tokens))), now: A.now)
        guard case .flight(.refresh(_, let used, let b))? = A.requests(checked).first?.1 else {
            throw A.Failure("no second refresh: \(checked.effects)")
        }
        #expect(used == "r1" && b.audience == "api" && b != a)
        router.apply(core: checked.core)
        let t2 = router.completed(
            flight, .flight(.refreshed(.success(narrowAnswer("n2", scope: nil, refresh: nil)), used: "r1")), now: A.now)
        guard case .token(let two)? = A.answers(t2)[other] else { throw A.Failure("\(t2.effects)") }
        #expect(two.tokens.accessToken == "n2" && two.target.audience == "api")
        #expect(t2.core.contains(.finish(flight)))
    }
}
