import Testing

@testable import LinkRouterCore

/// Accounts in the core: declarations checked, and the one flight per
/// account that every `GetToken` waits on (a keyring read, a refresh, the
/// write before anyone gets the new token), with the broker's rules for
/// what ends a sign-in and what does not.
@Suite("Accounts: declarations and token flights")
struct AccountTokenTests {
    static let issuer = "https://id.example.com"
    static let now: Int64 = 1_000_000

    static func account(_ name: String = "work", store: String? = nil) throws -> Account {
        var r = AccountRequest()
        r.issuer = issuer
        r.clientID = "cli"
        r.store = store
        return try Account.make(name: name, r, owner: .user)
    }

    static func tokens(_ access: String, expiresIn: Int64, refresh: String? = "r1") -> TokenSet {
        TokenSet(
            accessToken: access, tokenType: "Bearer", expiresAt: now + expiresIn, refreshToken: refresh, idToken: nil,
            scope: "openid")
    }

    static let metadata = ProviderMetadata(
        issuer: issuer, authorizationEndpoint: issuer + "/authorize", tokenEndpoint: issuer + "/token",
        jwksURI: issuer + "/jwks", issParameterSupported: false)

    /// A router whose callers are on the host.
    static func router(_ callers: String...) -> Router {
        var r = Router()
        r.apply(core: callers.map { .caller($0, .host) })
        return r
    }

    static let noInputs = BeginInputs(
        secrets: .failure(RouterError(.internalError, "unused")), browser: nil, claimTokenDigest: nil)

    /// The operation the transition starts, and what for.
    static func started(_ t: Transition) -> [(OperationID, Operation)] {
        t.effects.compactMap { if case .start(let op, let o) = $0 { (op, o) } else { nil } }
    }

    /// What the transition asks of providers and the keyring: the operations it starts, but the timers of refreshes
    /// ahead of need and the person's sign-in notices.
    static func requests(_ t: Transition) -> [(OperationID, Operation)] {
        started(t).filter {
            switch $0.1 {
            case .backgroundRefresh, .accountNotice, .flight(.patience): false
            default: true
            }
        }
    }

    static func answers(_ t: Transition) -> [OperationID: Transition.Reply] {
        var out: [OperationID: Transition.Reply] = [:]
        for case .answer(let op, let reply) in t.effects { out[op] = reply }
        return out
    }

    @Test(
        "declarations: a bad name, issuer, scope, token kind, store or min_valid is refused with its rule; a file reads back as written"
    )
    func declarations() throws {
        for bad in ["", "-x", "a/b", "a b", String(repeating: "a", count: 65), "é"] {
            #expect(throws: RouterError.self) { try Account.checkName(bad) }
        }
        func refused(_ edit: (inout AccountRequest) -> Void, _ words: String) {
            var r = AccountRequest()
            r.issuer = Self.issuer
            r.clientID = "cli"
            edit(&r)
            do {
                _ = try Account.make(name: "x", r, owner: .user)
                Issue.record("accepted: \(words)")
            } catch {
                #expect(error.message.contains(words), "\(error.message)")
            }
        }
        refused({ $0.issuer = nil }, "issuer is missing")
        refused({ $0.issuer = "http://id.example.com" }, "issuer must be an https URL")
        refused({ $0.clientID = nil }, "client_id is missing")
        refused({ $0.scope = "openid\n" }, "scope must be")
        refused({ $0.token = "refresh" }, "token must be access or id")
        refused({ $0.store = "file" }, "store must be keyring or memory")
        refused({ $0.unsaved = "bogus" }, "unsaved must be runtime or drop, not bogus")
        refused({ $0.minValid = 3601 }, "min_valid is at most 3600")
        refused({ $0.extraParams = ["state": "x"] }, "may not set state")
        refused({ $0.redirectURI = "myapp://cb" }, "reverse-domain")
        refused({ $0.registries = ["https://r.example"] }, "registries takes host names")
        refused({ $0.username = "a:b" }, "username must be")
        refused(
            { $0.deviceAuthorizationEndpoint = "http://id.example.com/device" },
            "device_authorization_endpoint must be an https URL")
        refused(
            { $0.deviceAuthorizationEndpoint = "javascript:alert(1)" },
            "device_authorization_endpoint must be an https URL")
        refused(
            { $0.revocationEndpoint = "https://u@id.example.com/revoke" }, "revocation_endpoint must be an https URL")
        refused(
            { $0.revocationEndpoint = "https://id.example.com/revoke#x" }, "revocation_endpoint must be an https URL")
        // An https issuer's endpoints are https: not the host's loopback services (issue 36).
        refused(
            { $0.revocationEndpoint = "http://127.0.0.1:631/revoke" },
            "revocation_endpoint must be https when the issuer is https")
        refused({ $0.gitURLs = ["http://git.example.com/"] }, "git_urls takes https URLs")
        refused({ $0.gitURLs = ["https://u@git.example.com/"] }, "git_urls takes https URLs")
        refused({ $0.gitURLs = ["https://git.example.com/?q"] }, "git_urls takes https URLs")
        // git_urls: one form, the longest prefix wins, scheme and host compare lowercased.
        var forge = AccountRequest()
        forge.issuer = Self.issuer
        forge.clientID = "cli"
        forge.gitURLs = ["HTTPS://Git.Example.com", "https://git.example.com/team"]
        let f = try Account.make(name: "forge", forge, owner: .user)
        #expect(f.gitURLs == ["https://git.example.com/", "https://git.example.com/team/"])
        #expect(Account.gitMatch(f.gitURLs, "https://GIT.example.com/") == 24)
        #expect(Account.gitMatch(f.gitURLs, "https://git.example.com/team/repo.git") == 29)
        #expect(Account.gitMatch(f.gitURLs, "https://git.example.com/teams/repo.git") == 24)
        #expect(Account.gitMatch(f.gitURLs, "https://git.example.org/") == nil)
        #expect(Account.gitMatch(f.gitURLs, "http://git.example.com/") == nil)
        refused({ $0.gitURLs = ["https://git.example.com/a;b/"] }, "git_urls takes https URLs")
        refused({ $0.gitURLs = ["https://git.example.com/team/../other/"] }, "dot segment")
        refused({ $0.gitURLs = ["https://git.example.com/team/%2E%2e/"] }, "dot segment")
        #expect(
            Account.gitMatch(f.gitURLs, "https://git.example.com/team/../other/x.git") == nil,
            "a path that climbs out matches nothing")

        var r = AccountRequest()
        r.issuer = Self.issuer
        r.clientID = "cli"
        r.audience = "api"
        r.extraParams = ["prompt": "login", "acr_values": "mfa"]
        r.token = "id"
        r.store = "memory"
        r.minValid = 0
        r.username = "oauth2accesstoken"
        r.registries = ["Registry.example.com:5000", "ghcr.io"]
        let a = try Account.make(name: "kube.prod", r, owner: .system)
        #expect(a.registries == ["registry.example.com:5000", "ghcr.io"])
        var back = AccountRequest()
        for (k, v) in a.fileEntries { try AccountRequest.options.set(&back, key: k, text: v) }
        #expect(try Account.make(name: "kube.prod", back, owner: .system) == a)
        var unknown = AccountRequest()
        #expect(throws: RouterError.self) { try AccountRequest.options.set(&unknown, key: "password", text: "x") }
    }

    @Test(
        "the flight's stage decides what it takes: an answer a stage did not ask for is logged and changes nothing (its tokens are not taken); a late patience timer is nothing; the flight lives in its account's keeper"
    )
    func stageExpects() throws {
        var router = Self.router(":1.1")
        let account = try Self.account()
        let t1 = router.getToken(account, TokenRequest(), caller: ":1.1", now: Self.now)
        guard case .held(let w1) = t1.reply, let (op, _) = Self.started(t1).first else { throw Failure("not held") }
        router.apply(core: t1.core)
        #expect(router.keepers[account.key]?.flight?.op == op && router.keepers[account.key]?.flight?.stage == .reading)
        #expect(router.running[op] == .account(account.key, .flight))
        // Reading: a write's answer, a refresh's answer, a patience timer are not what it waits on.
        let stray = Self.tokens("stray", expiresIn: 3600, refresh: "stray-rt")
        for event: TokenFlight.Event in [
            .written(nil, stray), .refreshed(.success(stray), used: "r1"), .metadata(.success(Self.metadata)),
        ] {
            let t = router.completed(op, .flight(event), now: Self.now)
            #expect(t.core.isEmpty && Self.answers(t).isEmpty && Self.started(t).isEmpty, "\(event.kind)")
            #expect(
                t.effects.contains {
                    if case .log(let line) = $0 {
                        line.priority == .warning && !"\(line)".contains("stray")
                    } else {
                        false
                    }
                }, "\(event.kind)")
        }
        let late = router.completed(op, .flight(.slow), now: Self.now)
        #expect(late.core.isEmpty && late.effects.isEmpty)
        // Another kind of work's answer under the flight's operation (a keyring delete's) does nothing either.
        let wrongKind = router.completed(op, .forgetting(nil), now: Self.now)
        #expect(wrongKind.core.isEmpty && wrongKind.effects.isEmpty)
        // Its own answer still lands: the stray tokens were never taken.
        let read = router.completed(op, .flight(.read(.success(Self.tokens("kept", expiresIn: 3600)))), now: Self.now)
        guard case .token(let a)? = Self.answers(read)[w1] else { throw Failure("not answered") }
        #expect(a.tokens.accessToken == "kept")
        router.apply(core: read.core)
        #expect(router.keepers[account.key]?.flight == nil && router.running[op] == nil)
    }

    @Test("three callers, one keyring read and one refresh; the new set is written before anyone gets it")
    func oneFlight() throws {
        var router = Self.router(":1.1", ":1.2", ":1.3")
        let account = try Self.account()
        // The first caller starts the flight: a keyring read (nothing in memory yet).
        let t1 = router.getToken(account, TokenRequest(), caller: ":1.1", now: Self.now)
        guard case .held(let w1) = t1.reply else { throw Failure("not held") }
        let read = try #require(Self.started(t1).first)
        #expect(read.1 == .flight(.read(account.key)))
        router.apply(core: t1.core)
        // The others wait on it: nothing more is started.
        for caller in [":1.2", ":1.3"] {
            let t = router.getToken(account, TokenRequest(), caller: caller, now: Self.now)
            #expect(Self.started(t).isEmpty)
            router.apply(core: t.core)
        }
        // The keyring holds a token with 10 s left: short of the 60 asked for, so one refresh.
        let t2 = router.completed(read.0, .flight(.read(.success(Self.tokens("old", expiresIn: 10)))), now: Self.now)
        #expect(Self.answers(t2).isEmpty)
        #expect(Self.started(t2).map(\.1) == [.flight(.discover(issuer: Self.issuer))])
        router.apply(core: t2.core)
        let t3 = router.discovered(read.0, Self.metadata, now: Self.now)
        guard case .flight(.refresh(_, let used, _))? = Self.started(t3).first?.1 else { throw Failure("no refresh") }
        #expect(used == "r1")
        router.apply(core: t3.core)
        // The provider rotates the refresh token: it goes to the keyring first, and no caller hears yet.
        let fresh = Self.tokens("new", expiresIn: 3600, refresh: "r2")
        let t4 = router.completed(read.0, .flight(.refreshed(.success(fresh), used: used)), now: Self.now)
        #expect(Self.answers(t4).isEmpty)
        #expect(Self.started(t4).map(\.1) == [.flight(.write(account.key, fresh))])
        router.apply(core: t4.core)
        // Written: all three get the new token, the same one.
        let t5 = router.completed(read.0, .flight(.written(nil, fresh)), now: Self.now)
        let answered = Self.answers(t5)
        #expect(answered.count == 3)
        #expect(
            answered.values.allSatisfy {
                if case .token(let a) = $0 { a.tokens.accessToken == "new" && a.warning == nil } else { false }
            })
        #expect(answered[w1] != nil)
        router.apply(core: t5.core)
        #expect(router.keepers[account.key]?.flight == nil)
        // And the next caller is answered from memory, with nothing started.
        let t6 = router.getToken(account, TokenRequest(), caller: ":1.1", now: Self.now + 1)
        guard case .token(let a) = t6.reply else { throw Failure("not from memory: \(t6.reply)") }
        #expect(a.tokens.accessToken == "new" && Self.started(t6).isEmpty)
    }

    @Test(
        "invalid_grant: the keyring is read again first; a newer refresh token there is used, else the sign-in ends and the item is deleted"
    )
    func refusedRefresh() throws {
        var router = Self.router(":1.1")
        let account = try Self.account()
        router.apply(core: [
            .account(account.key, AccountKeeper(tokens: Self.tokens("old", expiresIn: 0), loaded: true))
        ])
        let t1 = router.getToken(account, TokenRequest(), caller: ":1.1", now: Self.now)
        guard case .held(let wait) = t1.reply, let (flight, _) = Self.started(t1).first else {
            throw Failure("no flight")
        }
        router.apply(core: t1.core)
        router.apply(core: router.discovered(flight, Self.metadata, now: Self.now).core)
        let refusal = SessionFailure(code: .tokenExchangeFailed, providerError: "invalid_grant", message: "refused")
        let t2 = router.completed(flight, .flight(.refreshed(.failure(refusal), used: "r1")), now: Self.now)
        guard case .flight(.reread(account.key, "r1", let why))? = Self.started(t2).first?.1 else {
            throw Failure("not read again: \(t2.effects)")
        }
        #expect(Self.answers(t2).isEmpty)
        router.apply(core: t2.core)
        // Another process refreshed meanwhile: its refresh token is tried.
        let t3 = router.completed(
            flight,
            .flight(.reread(.success(Self.tokens("other", expiresIn: 0, refresh: "r9")), used: "r1", refusal: why)),
            now: Self.now)
        guard case .flight(.refresh(_, let live, _))? = Self.started(t3).first?.1 else {
            throw Failure("no second refresh: \(t3.effects)")
        }
        #expect(live == "r9")
        router.apply(core: t3.core)
        // Refused too, and the keyring has nothing newer: signed out, the item deleted.
        router.apply(
            core: router.completed(flight, .flight(.refreshed(.failure(refusal), used: "r9")), now: Self.now).core)
        let t4 = router.completed(
            flight,
            .flight(.reread(.success(Self.tokens("other", expiresIn: 0, refresh: "r9")), used: "r9", refusal: why)),
            now: Self.now)
        guard case .refused(let e)? = Self.answers(t4)[wait] else { throw Failure("not refused") }
        #expect(e.code == .notSignedIn && e.message.contains("linkctl login work"))
        #expect(Self.requests(t4).map(\.1) == [.forgetting(account.key)])
        router.apply(core: t4.core)
        #expect(router.keepers[account.key]?.tokens == nil)
    }

    @Test(
        "a provider that cannot be reached, or a locked keyring: an error to retry, the tokens kept, never a sign-out")
    func notASignOut() throws {
        var router = Self.router(":1.1")
        let account = try Self.account()
        let kept = Self.tokens("old", expiresIn: 0)
        router.apply(core: [.account(account.key, AccountKeeper(tokens: kept, loaded: true))])
        let t1 = router.getToken(account, TokenRequest(), caller: ":1.1", now: Self.now)
        guard case .held(let wait) = t1.reply, let (flight, _) = Self.started(t1).first else {
            throw Failure("no flight")
        }
        router.apply(core: t1.core)
        router.apply(core: router.discovered(flight, Self.metadata, now: Self.now).core)
        let down = SessionFailure(
            code: .tokenExchangeFailed,
            message: "the request to the token endpoint at id.example.com failed: connection refused")
        let t2 = router.completed(flight, .flight(.refreshed(.failure(down), used: "r1")), now: Self.now)
        guard case .refused(let e)? = Self.answers(t2)[wait] else { throw Failure("not answered") }
        #expect(e.code == .refreshFailed && e.message.contains("they are kept"))
        #expect(Self.requests(t2).isEmpty)
        router.apply(core: t2.core)
        #expect(router.keepers[account.key]?.tokens == kept && router.keepers[account.key]?.flight == nil)

        // A fresh daemon, a locked keyring: KeyringLocked, nothing deleted or written.
        var fresh = Self.router(":1.1")
        let t3 = fresh.getToken(account, TokenRequest(), caller: ":1.1", now: Self.now)
        guard case .held(let w3) = t3.reply, let (read, _) = Self.started(t3).first else { throw Failure("no read") }
        fresh.apply(core: t3.core)
        let t4 = fresh.completed(read, .flight(.read(.failure(RouterError(.keyringLocked, "locked")))), now: Self.now)
        guard case .refused(let locked)? = Self.answers(t4)[w3] else { throw Failure("not answered") }
        #expect(locked.code == .keyringLocked && Self.requests(t4).isEmpty)
    }

    @Test(
        "a provider that keeps failing is not asked at every call: the next refresh waits 5 s, then 10, 20 … (at most 300); meanwhile callers are answered at once (a token still live, with why it was not refreshed; else RefreshFailed); a refresh that works resets it; no log line carries a token"
    )
    func backoff() throws {
        #expect((1...8).map(AccountKeeper.backoff(after:)) == [5, 10, 20, 40, 80, 160, 300, 300])
        var router = Self.router(":1.1")
        let account = try Self.account()
        // 10 s left, less than min_valid (60): refreshed, but still usable.
        router.apply(core: [
            .account(
                account.key,
                AccountKeeper(tokens: Self.tokens("old", expiresIn: 10, refresh: "secret-rt"), loaded: true))
        ])
        let down = SessionFailure(
            code: .tokenExchangeFailed, message: "the request to the token endpoint at id.example.com failed: HTTP 503")
        func fail(at now: Int64) throws -> Transition {
            let t = router.getToken(account, TokenRequest(), caller: ":1.1", now: now)
            guard case .held = t.reply, let (flight, _) = Self.started(t).first else {
                throw Failure("no flight at \(now)")
            }
            router.apply(core: t.core)
            router.apply(core: router.discovered(flight, Self.metadata, now: now).core)
            let failed = router.completed(flight, .flight(.refreshed(.failure(down), used: "secret-rt")), now: now)
            // What a flight carries (the refresh token it spent) never reaches a log line.
            for case .log(let line) in failed.effects { #expect(!"\(line)".contains("secret-rt"), "\(line)") }
            router.apply(core: failed.core)
            return failed
        }
        let first = try fail(at: Self.now)
        guard case .token(let live)? = Self.answers(first).values.first else {
            throw Failure("the live token was not handed out")
        }
        #expect(live.tokens.accessToken == "old" && live.warning?.contains("tried again after 5 s") == true)
        #expect(router.keepers[account.key]?.retryAt == Self.now + 5)
        // Within the wait: answered at once, no request.
        let soon = router.getToken(account, TokenRequest(), caller: ":1.1", now: Self.now + 2)
        guard case .token(let again) = soon.reply else { throw Failure("not answered at once: \(soon.reply)") }
        #expect(
            again.tokens.accessToken == "old" && again.warning?.contains("503") == true && Self.started(soon).isEmpty)
        // After it: tried again; a second failure waits 10 s.
        _ = try fail(at: Self.now + 6)
        #expect(
            router.keepers[account.key]?.retryAt == Self.now + 16
                && router.keepers[account.key]?.failures == 2)
        // The token has run out meanwhile: RefreshFailed at once, not a sign-out.
        let late = router.getToken(account, TokenRequest(), caller: ":1.1", now: Self.now + 12)
        guard case .refused(let e) = late.reply else { throw Failure("\(late.reply)") }
        #expect(e.code == .refreshFailed && e.message.contains("tried again after") && Self.started(late).isEmpty)
        #expect(router.keepers[account.key]?.tokens != nil)
        // After the wait a refresh that works resets the count.
        let t = router.getToken(account, TokenRequest(), caller: ":1.1", now: Self.now + 20)
        guard let (flight, _) = Self.started(t).first else { throw Failure("no flight after the wait") }
        router.apply(core: t.core)
        router.apply(
            core: router.discovered(flight, Self.metadata, now: Self.now + 20).core)
        let new = Self.tokens("new", expiresIn: 3600)
        let worked = router.completed(flight, .flight(.refreshed(.success(new), used: "secret-rt")), now: Self.now + 20)
        router.apply(core: worked.core)
        router.apply(core: router.completed(flight, .flight(.written(nil, new)), now: Self.now + 20).core)
        #expect(router.keepers[account.key]?.tokens?.accessToken == "new")
        #expect(router.keepers[account.key]?.failures == 0 && router.keepers[account.key]?.retryAt == nil)

        // Nor does a flight's description (stages and token sets reach log lines).
        #expect(
            !"\(TokenFlight.Stage.writing(Self.tokens("at-secret", expiresIn: 1)))".contains("secret")
                && !"\(Self.tokens("at-secret", expiresIn: 1))".contains("at-secret"))
    }

    @Test("a write that fails keeps the set in memory and says so; store=memory never touches the keyring")
    func unsavedAndMemory() throws {
        var router = Self.router(":1.1")
        let account = try Self.account()
        var turn = Turn(router, now: Self.now)
        let a1 = Self.tokens("a", expiresIn: 3600)
        let keep = AccountKeeper.keepTokens(a1, for: account.key, inMemoryOnly: false, &turn)
        guard let (write, op) = Self.started(keep).first, case .flight(.write) = op else { throw Failure("no write") }
        router.apply(core: keep.core)
        router.apply(
            core: router.completed(
                write, .flight(.written(RouterError(.keyringFailed, "no answer in 30 s"), a1)), now: Self.now
            ).core)
        guard case .token(let a) = router.getToken(account, TokenRequest(), caller: ":1.1", now: Self.now).reply else {
            throw Failure("no token")
        }
        #expect(a.tokens.accessToken == "a" && a.warning?.contains("not in the keyring") == true)

        let memory = Self.router(":1.1")
        let m = try Self.account("scratch", store: "memory")
        let none = memory.getToken(m, TokenRequest(), caller: ":1.1", now: Self.now)
        guard case .refused(let e) = none.reply else { throw Failure("not refused") }
        #expect(e.code == .notSignedIn && Self.requests(none).isEmpty)
        var turn2 = Turn(memory, now: Self.now)
        let kept = AccountKeeper.keepTokens(Self.tokens("m", expiresIn: 3600), for: m.key, inMemoryOnly: true, &turn2)
        #expect(Self.requests(kept).isEmpty)
    }

    @Test(
        "a caller not yet known waits for its identity; a sandboxed app sees none of the user's accounts, and gets a token of one or signs in to one only after the person's yes (the calls wait on the prompt)"
    )
    func sandboxed() throws {
        var router = Router()
        let account = try Self.account()
        let t1 = router.getToken(account, TokenRequest(), caller: ":1.7", now: Self.now)
        guard case .held(let held) = t1.reply, let (identify, op) = Self.started(t1).first,
            case .identification(.identify) = op
        else {
            throw Failure("not held for identity")
        }
        router.apply(core: t1.core)
        let t2 = router.completed(identify, .identification(.identified(.flatpak("org.example.App"))), now: Self.now)
        // The person's account: no answer and no keyring read until the person says yes (`ConsentPromptTests`).
        #expect(Self.answers(t2)[held] == nil)
        #expect(!Self.started(t2).contains { if case .flight(.read) = $0.1 { true } else { false } })
        #expect(Self.started(t2).contains { if case .consent(.show) = $0.1 { true } else { false } })
        router.apply(core: t2.core)
        let again = router.getToken(account, TokenRequest(), caller: ":1.7", now: Self.now)
        guard case .held = again.reply else { throw Failure("answered without the person: \(again.reply)") }
        #expect(!Self.started(again).contains { if case .consent(.show) = $0.1 { true } else { false } })
        router.apply(core: again.core)
        // Nor does it see any; a caller not yet known waits to be known before the list is shown.
        #expect(router.listAccounts([account], caller: ":1.7").reply == .accounts([]))
        guard case .held = router.listAccounts([account], caller: ":1.8").reply else {
            throw Failure("listed to an unknown caller")
        }
        // For a host caller, an account not read yet is read first, then listed.
        var host = Self.router(":1.9")
        let list = host.listAccounts([account], caller: ":1.9")
        guard case .held(let listOp) = list.reply, let (read, op) = Self.started(list).first, case .flight(.read) = op
        else { throw Failure("not read first") }
        host.apply(core: list.core)
        let landed = host.completed(read, .flight(.read(.success(nil))), now: Self.now)
        guard case .accounts(let shown)? = Self.answers(landed)[listOp] else { throw Failure("not listed") }
        #expect(
            shown.map(\.account) == [account] && shown.first?.tokens?.loaded == true
                && shown.first?.tokens?.tokens == nil)

        var request = SessionRequest()
        request.account = "work"
        let begin = router.beginSession(
            request, inputs: Self.noInputs, accounts: [account], caller: ":1.7", login: false, now: Self.now)
        guard case .held = begin.reply,
            !begin.core.contains(where: { if case .track(_, .begin) = $0 { true } else { false } })
        else { throw Failure("begun without the person's yes") }
        // And an account's options are the account's: given again, refused.
        var twice = SessionRequest()
        twice.issuer = Self.issuer
        #expect(throws: RouterError.self) { try twice.use(account) }
    }

    @Test(
        "an app's own accounts: AddAccount from a Flatpak declares it for that app, apart from the user's of the same name (its own keyring key); it gets and signs in to its own only, another app sees none, the host sees it listed; the administrator's name, a bad declaration and an unidentified caller are refused; replacing it with another provider forgets its tokens; RemoveAccount forgets them before it answers"
    )
    func appAccounts() throws {
        var router = Router()
        router.apply(core: [
            .caller(":1.2", .flatpak("org.example.App")), .caller(":1.3", .flatpak("org.example.Other")),
            .caller(":1.4", .host), .caller(":1.5", .unknown),
        ])
        let user = try Self.account()
        var r = AccountRequest()
        r.issuer = Self.issuer
        r.clientID = "app"
        // Declared before the person's `work` (an app's declaration that takes one of the person's names is refused,
        // ConsentPromptTests.lookAlikes); the person's came after.
        let add = router.accountCall(.add("work", r), accounts: [], caller: ":1.2", now: Self.now)
        guard case .held(let addOp) = add.reply, let (writeOp, write) = Self.started(add).first,
            case .accountFile(.write(let mine)) = write
        else { throw Failure("no write") }
        #expect(addOp == writeOp && mine.owner == .app("flatpak:org.example.App") && mine.clientID == "app")
        #expect(
            mine.key != user.key && mine.key.qualifiedName == "flatpak:org.example.App/work"
                && user.key.qualifiedName == "work")
        #expect(AccountKey(qualifiedName: mine.key.qualifiedName, issuer: Self.issuer) == mine.key)
        router.apply(core: add.core)
        let added = router.completed(writeOp, .accountFile(.done(nil)), now: Self.now)
        #expect(Self.answers(added)[addOp] == Transition.Reply.none)
        router.apply(core: added.core)
        let declared = [user, mine]
        // The same declaration again: answered at once, nothing written.
        let again = router.accountCall(.add("work", r), accounts: declared, caller: ":1.2", now: Self.now)
        #expect(again.reply == Transition.Reply.none && Self.started(again).isEmpty)

        // Each caller's `work` is its own: the user's tokens never reach the app.
        router.apply(core: [
            .account(user.key, AccountKeeper(tokens: Self.tokens("users", expiresIn: 3600), loaded: true))
        ])
        guard
            case .token(let hosts) = router.accountCall(
                .getToken("work", TokenRequest()), accounts: declared, caller: ":1.4", now: Self.now
            ).reply
        else {
            throw Failure("host got none")
        }
        #expect(hosts.tokens.accessToken == "users")
        let apps = router.accountCall(
            .getToken("work", TokenRequest()), accounts: declared, caller: ":1.2", now: Self.now)
        guard case .held = apps.reply, let (_, read) = Self.started(apps).first else {
            throw Failure("the app's not read")
        }
        #expect(read == .flight(.read(mine.key)))
        // Another app never reaches the app's `work`; the person's `work` it may have only with their yes (a prompt).
        let otherApp = router.accountCall(
            .getToken("work", TokenRequest()), accounts: declared, caller: ":1.3", now: Self.now)
        guard case .held = otherApp.reply,
            case .consent(.show(let asked))? = Self.started(otherApp).first(where: {
                if case .consent(.show) = $0.1 { true } else { false }
            })?.1
        else { throw Failure("another app was not asked about: \(otherApp.reply)") }
        #expect(asked.summary == "Allow org.example.Other to use your account work?")
        #expect(!Self.started(otherApp).contains { if case .flight = $0.1 { true } else { false } })
        #expect(router.accountCall(.list, accounts: declared, caller: ":1.3", now: Self.now).reply == .accounts([]))
        #expect(
            router.accountCall(.getToken("work", TokenRequest()), accounts: declared, caller: ":1.5", now: Self.now)
                .reply == .refused(AccountKeeper.unknownAccount("work")))
        let listed = router.accountCall(.list, accounts: declared, caller: ":1.2", now: Self.now)
        guard listed.core.contains(where: { if case .hold(_, .list([mine], _)) = $0 { true } else { false } })
        else { throw Failure("the app's list is not its own") }
        let hostList = router.accountCall(.list, accounts: declared, caller: ":1.4", now: Self.now)
        guard hostList.core.contains(where: { if case .hold(_, .list(declared, _)) = $0 { true } else { false } })
        else { throw Failure("the host does not see the app's") }

        // Its login is its own account's: the request gets the app's client, and the tokens land on its key.
        var login = SessionRequest()
        login.account = "work"
        let begin = router.beginSession(
            login, inputs: Self.noInputs, accounts: declared, caller: ":1.2", login: false, now: Self.now)
        guard case .held(let beginOp) = begin.reply, case .track(_, .begin(let pending))? = begin.core.first else {
            throw Failure("not begun: \(begin.reply)")
        }
        #expect(pending.request.clientID == "app" && pending.request.account == "flatpak:org.example.App/work")
        let otherBegin = router.beginSession(
            login, inputs: Self.noInputs, accounts: declared, caller: ":1.3", login: false, now: Self.now)
        #expect(
            otherBegin.core.contains { if case .hold(_, .account) = $0 { true } else { false } }
                && !otherBegin.core.contains { if case .track(_, .begin) = $0 { true } else { false } },
            "another app's sign-in to the person's work waits on the person's yes")
        _ = beginOp

        // Refused: the administrator's name; a declaration that breaks a rule; an unidentified caller; a host program's
        // removing the administrator's.
        let admin = try Account.make(
            name: "fleet",
            {
                var a = AccountRequest()
                a.issuer = Self.issuer
                a.clientID = "c"
                return a
            }(), owner: .system)
        guard
            case .refused(let taken) = router.accountCall(
                .add("fleet", r), accounts: [admin], caller: ":1.4", now: Self.now
            ).reply
        else { throw Failure("took the administrator's") }
        #expect(taken.code == .accessDenied)
        guard
            case .refused(let bad) = router.accountCall(
                .add("x", AccountRequest()), accounts: [], caller: ":1.2", now: Self.now
            ).reply
        else { throw Failure("bad one taken") }
        #expect(bad.code == .invalidArgument && bad.message.contains("issuer is missing"))
        #expect(
            router.accountCall(.add("x", r), accounts: [], caller: ":1.5", now: Self.now).reply
                == .refused(AccountKeeper.unknownAccount("x")))
        guard
            case .refused(let adminRemove) = router.accountCall(
                .remove("fleet"), accounts: [admin], caller: ":1.4", now: Self.now
            ).reply
        else { throw Failure("removed") }
        #expect(adminRemove.code == .accessDenied)
        // Bounded: an app declares at most maxAccountsPerApp, counting those still being written.
        var small = Router(limits: Limits(maxAccountsPerApp: 1))
        small.apply(core: [.caller(":1.2", .flatpak("org.example.App"))])
        guard
            case .refused(let many) = small.accountCall(.add("two", r), accounts: [mine], caller: ":1.2", now: Self.now)
                .reply
        else { throw Failure("no bound") }
        #expect(many.code == .limitsExceeded)
        let firstAdd = small.accountCall(.add("one", r), accounts: [], caller: ":1.2", now: Self.now)
        guard case .held = firstAdd.reply else { throw Failure("first not written") }
        small.apply(core: firstAdd.core)
        guard
            case .refused(let racing) = small.accountCall(.add("two", r), accounts: [], caller: ":1.2", now: Self.now)
                .reply
        else { throw Failure("a second slipped past") }
        #expect(racing.code == .limitsExceeded)
        // An app with a long id signs in to its own account: the qualified name fits the option's bound.
        var long = Router()
        long.apply(core: [.caller(":1.9", .flatpak("io.github.someone.SomeApplicationWithALongName"))])
        let longOwned = try Account.make(
            name: "work-account-of-some-length", r,
            owner: .app("flatpak:io.github.someone.SomeApplicationWithALongName"))
        var longLogin = SessionRequest()
        longLogin.account = "work-account-of-some-length"
        longLogin.openBrowser = false
        let longBegin = long.beginSession(
            longLogin, inputs: Fixtures.inputs(), accounts: [longOwned], caller: ":1.9", login: false, now: Self.now)
        guard case .held(let longOp) = longBegin.reply else { throw Failure("not begun: \(longBegin.reply)") }
        long.apply(core: longBegin.core)
        // A keyring account's login first asks whether there is a keyring at all.
        #expect(Self.started(longBegin).contains { if case .begin(.probeKeyring) = $0.1 { true } else { false } })
        long.apply(core: long.completed(longOp, .begin(.keyring(.success(nil))), now: Self.now).core)
        let planned = long.completed(longOp, .begin(.metadata(.success(Self.metadata))), now: Self.now)
        if case .refused(let e)? = Self.answers(planned)[longOp] { Issue.record("refused: \(e.message)") }
        // Its loopback redirect needs a listener first: the begin goes on to it, with the app's account.
        #expect(
            planned.core.contains {
                if case .advance(longOp, .begin(let b)) = $0 {
                    b.request.account == longOwned.key.qualifiedName
                } else {
                    false
                }
            })
        #expect(Self.started(planned).contains { if case .begin(.listen) = $0.1 { true } else { false } })

        // Replaced with another client: once written, the old tokens are forgotten, in memory and the keyring.
        router.apply(core: [
            .account(mine.key, AccountKeeper(tokens: Self.tokens("apps", expiresIn: 3600), loaded: true))
        ])
        var other = r
        other.clientID = "app2"
        // (With the person's `work` declared since, a new declaration of that name is refused: ConsentPromptTests.)
        let replace = router.accountCall(.add("work", other), accounts: [mine], caller: ":1.2", now: Self.now)
        guard case .held(let replaceOp) = replace.reply else { throw Failure("not written") }
        #expect(router.keepers[mine.key]?.tokens != nil)
        router.apply(core: replace.core)
        let replaced = router.completed(replaceOp, .accountFile(.done(nil)), now: Self.now)
        #expect(
            Self.answers(replaced)[replaceOp] == Transition.Reply.none
                && Self.started(replaced).contains { $0.1 == .forgetting(mine.key) })
        router.apply(core: replaced.core)
        #expect(router.keepers[mine.key]?.tokens == nil)

        // Removed: the file first; a failure changes nothing; then the tokens, then the answer.
        router.apply(core: [
            .account(mine.key, AccountKeeper(tokens: Self.tokens("apps", expiresIn: 3600), loaded: true))
        ])
        let remove = router.accountCall(.remove("work"), accounts: declared, caller: ":1.2", now: Self.now)
        guard case .held(let removeOp) = remove.reply, Self.started(remove).first?.1 == .accountFile(.remove(mine))
        else {
            throw Failure("not removed")
        }
        router.apply(core: remove.core)
        let failed = router.completed(removeOp, .accountFile(.done(RouterError(.storageFailed, "disk"))), now: Self.now)
        #expect(Self.answers(failed)[removeOp] == .refused(RouterError(.storageFailed, "disk")))
        router.apply(core: failed.core)
        #expect(router.keepers[mine.key]?.tokens != nil)
        let remove2 = router.accountCall(.remove("work"), accounts: declared, caller: ":1.2", now: Self.now)
        guard case .held(let removeOp2) = remove2.reply else { throw Failure("not removed") }
        router.apply(core: remove2.core)
        let gone = router.completed(removeOp2, .accountFile(.done(nil)), now: Self.now)
        #expect(
            Self.answers(gone)[removeOp2] == nil && Self.started(gone).contains { $0.1 == .logout(.delete(mine.key)) })
        router.apply(core: gone.core)
        #expect(
            router.keepers[mine.key]?.tokens == nil
                && router.keepers[user.key]?.tokens?.accessToken == "users")
        let forgotten = router.completed(removeOp2, .logout(.deleted(nil)), now: Self.now)
        #expect(Self.answers(forgotten)[removeOp2] == Transition.Reply.none)
    }

    @Test(
        "Logout revokes at the provider (RFC 7009) after forgetting, and answers with what the provider did: the refresh token (else the access token) with its hint once the metadata names a revocation endpoint (revoked); none named (not-offered) or a refusal (failed) changes nothing here; no tokens held (none); tokens not read yet are read first"
    )
    func revocation() throws {
        var router = Self.router(":1.1")
        let account = try Self.account()
        router.apply(core: [
            .account(
                account.key, AccountKeeper(tokens: Self.tokens("at", expiresIn: 3600, refresh: "rt"), loaded: true))
        ])
        let out = router.logout(account, caller: ":1.1")
        guard case .held(let held) = out.reply else { throw Failure("not held") }
        // Forgotten in the keyring first; nothing is asked of the provider before that.
        #expect(Self.started(out).map(\.1) == [.logout(.delete(account.key))])
        #expect(router.keepers[account.key]?.tokens != nil)
        router.apply(core: out.core)
        #expect(router.keepers[account.key]?.tokens == nil, "forgotten in memory at once")
        let deleted = router.completed(held, .logout(.deleted(nil)), now: Self.now)
        #expect(Self.answers(deleted).isEmpty, "the answer waits on the provider's word")
        #expect(
            Self.started(deleted).map(\.0) == [held]
                && Self.started(deleted).first?.1 == .revoking(.discover(issuer: Self.issuer)))
        router.apply(core: deleted.core)
        let revocationEndpoint = Self.issuer + "/revoke"
        let withEndpoint = ProviderMetadata(
            issuer: Self.issuer, authorizationEndpoint: Self.issuer + "/authorize",
            tokenEndpoint: Self.issuer + "/token", jwksURI: Self.issuer + "/jwks",
            issParameterSupported: false, revocationEndpoint: revocationEndpoint)
        let asked = router.completed(held, .revoking(.metadata(.success(withEndpoint))), now: Self.now)
        guard case .revoking(.revoke(let r, let endpoint))? = Self.started(asked).first?.1 else {
            throw Failure("not revoked")
        }
        #expect(endpoint == revocationEndpoint && r.token == "rt" && r.hint == "refresh_token" && r.clientID == "cli")
        #expect("\(r)" == "revocation of work's refresh_token", "a revocation never prints its token")
        router.apply(core: asked.core)
        var refusedRouter = router
        let took = router.completed(held, .revoking(.revoked(nil)), now: Self.now)
        #expect(Self.answers(took)[held] == .signedOut(.revoked(hint: "refresh_token")) && took.core == [.finish(held)])
        router.apply(core: took.core)
        #expect(router.running.isEmpty)
        let refused = refusedRouter.completed(
            held, .revoking(.revoked(RouterError(.tokenExchangeFailed, "HTTP 401"))), now: Self.now)
        #expect(
            Self.answers(refused)[held] == .signedOut(.failed("HTTP 401", endSession: false))
                && refused.core == [.finish(held)])
        refusedRouter.apply(core: refused.core)
        #expect(refusedRouter.running.isEmpty)

        // No endpoint: not-offered, nothing sent. An access token alone is revoked as one.
        var bare = Self.router(":1.1")
        bare.apply(core: [
            .account(account.key, AccountKeeper(tokens: Self.tokens("at", expiresIn: 3600, refresh: nil), loaded: true))
        ])
        let out2 = bare.logout(account, caller: ":1.1")
        guard case .held(let held2) = out2.reply else { throw Failure("not held") }
        bare.apply(core: out2.core)
        bare.apply(core: bare.completed(held2, .logout(.deleted(nil)), now: Self.now).core)
        let none = bare.completed(held2, .revoking(.metadata(.success(Self.metadata))), now: Self.now)
        #expect(
            none.core == [.finish(held2)] && Self.started(none).isEmpty
                && Self.answers(none)[held2] == .signedOut(.notOffered(endSession: false)))
        let at = bare.completed(held2, .revoking(.metadata(.success(withEndpoint))), now: Self.now)
        guard case .revoking(.revoke(let r2, _))? = Self.started(at).first?.1 else {
            throw Failure("access token not revoked")
        }
        #expect(r2.token == "at" && r2.hint == "access_token")

        // Nothing held at all (signed out already, read empty): answered at once with none.
        var empty = Self.router(":1.1")
        let out4 = empty.logout(account, caller: ":1.1")
        guard case .held(let held4) = out4.reply else { throw Failure("not held") }
        empty.apply(core: out4.core)
        empty.apply(core: empty.completed(held4, .logout(.read(.success(nil))), now: Self.now).core)
        #expect(
            Self.answers(empty.completed(held4, .logout(.deleted(nil)), now: Self.now))[held4]
                == .signedOut(.nothingHeld))

        // The caller leaves while the tokens are read for its sign-out: the sign-out and the revocation go on for
        // nobody, and nobody is answered.
        var leaving = Self.router(":1.1")
        let gone = leaving.logout(account, caller: ":1.1")
        guard case .held(let goneOp) = gone.reply else { throw Failure("not held") }
        leaving.apply(core: gone.core)
        let left = leaving.ownerGone(":1.1", now: Self.now)
        #expect(left.effects.contains(.forget(goneOp)) && !left.core.contains(.finish(goneOp)))
        leaving.apply(core: left.core)
        let readForNobody = leaving.completed(
            goneOp, .logout(.read(.success(Self.tokens("at", expiresIn: 3600, refresh: "rt")))), now: Self.now)
        #expect(Self.started(readForNobody).contains { $0 == (goneOp, .logout(.delete(account.key))) })
        leaving.apply(core: readForNobody.core)
        let deletedForNobody = leaving.completed(goneOp, .logout(.deleted(nil)), now: Self.now)
        #expect(Self.started(deletedForNobody).contains { $0.1 == .revoking(.discover(issuer: Self.issuer)) })
        leaving.apply(core: deletedForNobody.core)
        let revokedForNobody = leaving.completed(goneOp, .revoking(.revoked(nil)), now: Self.now)
        #expect(Self.answers(revokedForNobody).isEmpty)

        // Not read yet (a daemon just started): read, then deleted, then revoked, then answered.
        var fresh = Self.router(":1.1")
        let out3 = fresh.logout(account, caller: ":1.1")
        guard case .held(let held3) = out3.reply, Self.started(out3).map(\.1) == [.logout(.read(account.key))] else {
            throw Failure("not read first")
        }
        fresh.apply(core: out3.core)
        let read = fresh.completed(
            held3, .logout(.read(.success(Self.tokens("at", expiresIn: 3600, refresh: "rt")))), now: Self.now)
        #expect(Self.started(read).map(\.1) == [.logout(.delete(account.key))])
        #expect(Self.answers(read).isEmpty)
        fresh.apply(core: read.core)
        let readDeleted = fresh.completed(held3, .logout(.deleted(nil)), now: Self.now)
        #expect(Self.started(readDeleted).map(\.1) == [.revoking(.discover(issuer: Self.issuer))])
        // The keyring refused the delete: refused at once, and revoked all the same.
        var stuck = Self.router(":1.1")
        let out5 = stuck.logout(account, caller: ":1.1")
        guard case .held(let held5) = out5.reply else { throw Failure("not held") }
        stuck.apply(core: out5.core)
        stuck.apply(
            core: stuck.completed(
                held5, .logout(.read(.success(Self.tokens("at", expiresIn: 3600, refresh: "rt")))), now: Self.now
            ).core)
        let failedDelete = stuck.completed(
            held5, .logout(.deleted(RouterError(.keyringFailed, "no"))), now: Self.now)
        guard case .refused(let e)? = Self.answers(failedDelete)[held5] else { throw Failure("not refused") }
        #expect(e.code == .keyringFailed && e.message.contains("still holds its tokens"))
        #expect(Self.started(failedDelete).contains { $0.1 == .revoking(.discover(issuer: Self.issuer)) })
        // The metadata names a revocation endpoint only when it keeps the endpoint rules.
        func endpointRead(_ value: String) throws -> String? {
            let document = OpenIDTests.document(OpenIDTests.set("revocation_endpoint", .string(value)))
            return try ProviderMetadata(document: document, expectedIssuer: OpenIDTests.issuer, from: "x")
                .revocationEndpoint
        }
        #expect(try endpointRead("http://evil.example/r") == nil)
        #expect(try endpointRead(OpenIDTests.issuer + "/revoke") == OpenIDTests.issuer + "/revoke")
    }

    @Test(
        "a caller whose app could not be found out is never taken for the host: its held calls and later ones are refused, not held forever; Logout and RejectToken wait for the identity too"
    )
    func unknownIsNotHost() throws {
        var router = Router()
        let account = try Self.account()
        router.apply(core: [
            .account(account.key, AccountKeeper(tokens: Self.tokens("t", expiresIn: 3600), loaded: true))
        ])
        // Logout from a caller not yet known: held, nothing forgotten yet.
        let out = router.logout(account, caller: ":1.5")
        guard case .held(let held) = out.reply, let (identify, _) = Self.started(out).first else {
            throw Failure("logout not held")
        }
        #expect(!out.core.contains { if case .account = $0 { true } else { false } })
        router.apply(core: out.core)
        // While it is being found out, a second call waits without a second identification.
        let reject = router.rejectToken(account, "t", caller: ":1.5")
        guard case .held(let rejectHeld) = reject.reply else { throw Failure("reject not held") }
        #expect(Self.started(reject).isEmpty)
        router.apply(core: reject.core)
        // Found out: unknown. Both are refused, the tokens untouched.
        let t = router.completed(identify, .identification(.identified(.unknown)), now: Self.now)
        #expect(Self.answers(t)[held] == .refused(AccountKeeper.unknownAccount("work")))
        #expect(Self.answers(t)[rejectHeld] == .refused(AccountKeeper.unknownAccount("work")))
        router.apply(core: t.core)
        #expect(router.keepers[account.key]?.tokens?.accessToken == "t")
        // And from now on it is refused at once, never held.
        #expect(
            router.getToken(account, TokenRequest(), caller: ":1.5", now: Self.now).reply
                == .refused(AccountKeeper.unknownAccount("work")))
        #expect(router.listAccounts([account], caller: ":1.5").reply == .accounts([]))
    }

    @Test(
        "calls held while the caller is identified go on under the same operations once it is known: one answered from memory, one waiting on the keyring read it started, each held once"
    )
    func heldUntilIdentified() throws {
        var router = Router()
        let account = try Self.account()
        let first = router.getToken(account, TokenRequest(), caller: ":1.6", now: Self.now)
        guard case .held(let held) = first.reply, let (identify, _) = Self.started(first).first else {
            throw Failure("not held for identity")
        }
        router.apply(core: first.core)
        let list = router.listAccounts([account], caller: ":1.6")
        guard case .held(let listHeld) = list.reply else { throw Failure("list not held") }
        router.apply(core: list.core)
        let known = router.completed(identify, .identification(.identified(.host)), now: Self.now)
        // The token call now waits on the keyring read it started; the list waits on the same read.
        guard let (read, work) = Self.started(known).first, case .flight(.read) = work else {
            throw Failure("no read: \(known.effects)")
        }
        #expect(Self.started(known).count == 1, "one read for both")
        #expect(Self.answers(known).isEmpty)
        router.apply(core: known.core)
        #expect(
            router.held[held]
                == .token(
                    TokenWait(account.key, caller: ":1.6", kind: .access, minValid: 60, proof: nil, account: account))
        )
        #expect(router.held[listHeld] == .list([account], caller: ":1.6"))
        let landed = router.completed(
            read, .flight(.read(.success(Self.tokens("kept", expiresIn: 3600)))), now: Self.now)
        guard case .token(let a)? = Self.answers(landed)[held], case .accounts? = Self.answers(landed)[listHeld] else {
            throw Failure("not answered: \(landed.effects)")
        }
        #expect(a.tokens.accessToken == "kept")
        router.apply(core: landed.core)
        #expect(
            router.held.calls.isEmpty
                && router.running.values.allSatisfy { if case .account(_, .refreshTimer) = $0 { true } else { false } })
    }

    @Test(
        "a sign-in that lands during a flight supersedes it: the flight is dropped (its operation gone, its late answer changes nothing), the keeper holds the sign-in's write, the new set is written and handed to its waiters; a part finished from outside leaves its keeper"
    )
    func loginDuringFlight() throws {
        var router = Self.router(":1.1")
        let account = try Self.account()
        let t1 = router.getToken(account, TokenRequest(), caller: ":1.1", now: Self.now)
        guard case .held(let wait) = t1.reply, let (read, _) = Self.started(t1).first else {
            throw Failure("no flight")
        }
        router.apply(core: t1.core)
        var turn = Turn(router, now: Self.now)
        let newLogin = Self.tokens("new-login", expiresIn: 3600)
        let login = AccountKeeper.keepTokens(newLogin, for: account.key, inMemoryOnly: false, &turn)
        #expect(login.core.contains(.finish(read)))
        guard let (write, _) = Self.started(login).first else { throw Failure("no write") }
        router.apply(core: login.core)
        #expect(router.keepers[account.key]?.flight?.op == write && router.running[read] == nil)
        #expect(router.keepers[account.key]?.flight?.stage == .writing(newLogin))
        #expect(router.running[write] == .account(account.key, .flight))
        // The old read's answer finds nothing; the write's hands the waiter the new set.
        let late = router.completed(read, .flight(.read(.success(nil))), now: Self.now)
        #expect(late.effects.isEmpty && late.core.isEmpty)
        let landed = router.completed(write, .flight(.written(nil, newLogin)), now: Self.now)
        guard case .token(let a)? = Self.answers(landed)[wait] else { throw Failure("waiter not answered") }
        #expect(a.tokens.accessToken == "new-login")
        router.apply(core: landed.core)
        #expect(router.keepers[account.key]?.flight == nil)
        // The new set's refresh-ahead timer, finished from outside (as a sign-out drops it): its keeper lets it go.
        let timer = try #require(router.keepers[account.key]?.refreshTimer?.op)
        router.apply(core: [.finish(timer)])
        #expect(router.keepers[account.key]?.refreshTimer == nil && router.running[timer] == nil)
    }

    @Test(
        "tokens kept only in memory after a failed write are written again at the next GetToken, which is answered at once"
    )
    func unsavedRetried() throws {
        var router = Self.router(":1.1")
        let account = try Self.account()
        router.apply(core: [
            .account(
                account.key, AccountKeeper(tokens: Self.tokens("m", expiresIn: 3600), loaded: true, unsaved: "locked"))
        ])
        let t = router.getToken(account, TokenRequest(), caller: ":1.1", now: Self.now)
        guard case .token(let a) = t.reply else { throw Failure("not answered at once") }
        #expect(a.warning != nil)
        guard case .flight(.write(_, let written))? = Self.started(t).first?.1 else {
            throw Failure("no write retried")
        }
        #expect(written.accessToken == "m")
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }
}

/// The calls as the daemon makes them, with one declared account each.
extension Router {
    /// A flight's discovery answered with `metadata`, and the keyring check it starts before a refresh
    /// (`TokenFlight.Work.check`) answered as an unlocked keyring that holds what memory holds: the transition that
    /// follows (unapplied), the steps before it applied.
    mutating func discovered(_ flight: OperationID, _ metadata: ProviderMetadata, now: Int64) -> Transition {
        let t = completed(flight, .flight(.metadata(.success(metadata))), now: now)
        guard let (_, op) = AccountTokenTests.started(t).first(where: { $0.0 == flight }),
            case .flight(.check(let key)) = op
        else { return t }
        apply(core: t.core)
        return completed(flight, .flight(.checked(.success(keepers[key]?.tokens))), now: now)
    }

    fileprivate func getToken(_ a: Account, _ r: TokenRequest, caller: String, now: Int64) -> Transition {
        accountCall(.getToken(a.name, r), accounts: [a], caller: caller, now: now)
    }
    fileprivate func listAccounts(_ accounts: [Account], caller: String) -> Transition {
        accountCall(.list, accounts: accounts, caller: caller, now: 0)
    }
    fileprivate func logout(_ a: Account, caller: String) -> Transition {
        accountCall(.logout(a.name), accounts: [a], caller: caller, now: 0)
    }
    fileprivate func rejectToken(_ a: Account, _ token: String, caller: String) -> Transition {
        accountCall(.reject(a.name, token: token), accounts: [a], caller: caller, now: 0)
    }
}

extension AccountTokenTests {
    @Test(
        "a narrower token the provider will not make (invalid_target, invalid_scope): that call is refused TokenExchangeFailed naming why, the refresh token and the sign-in kept, the account's own token still handed out; invalid_grant for it still ends the sign-in (after the keyring is read again)"
    )
    func narrowerRefused() throws {
        for error in ["invalid_target", "invalid_scope", "invalid_grant"] {
            var router = Self.router(":1.1")
            let account = try Self.account()
            router.apply(core: [
                .account(account.key, AccountKeeper(tokens: Self.tokens("own", expiresIn: 3600), loaded: true))
            ])
            var narrow = TokenRequest()
            narrow.resources = ["https://api.example.com/"]
            let t1 = router.getToken(account, narrow, caller: ":1.1", now: Self.now)
            guard case .held(let wait) = t1.reply, let (flight, _) = Self.started(t1).first else {
                throw Failure("\(error): no flight")
            }
            router.apply(core: t1.core)
            router.apply(core: router.discovered(flight, Self.metadata, now: Self.now).core)
            var refusal = SessionFailure(code: .tokenExchangeFailed, providerError: error, message: "refused")
            refusal.httpStatus = 400
            let t2 = router.completed(flight, .flight(.refreshed(.failure(refusal), used: "r1")), now: Self.now)
            router.apply(core: t2.core)
            if error == "invalid_grant" {
                #expect(Self.answers(t2).isEmpty, "the keyring is read again before the sign-in ends")
                guard case .flight(.reread)? = Self.started(t2).first?.1 else {
                    throw Failure("not read again: \(t2.effects)")
                }
                continue
            }
            guard case .refused(let e)? = Self.answers(t2)[wait] else { throw Failure("\(error): \(t2.effects)") }
            #expect(
                e.code == .tokenExchangeFailed && e.message.contains(error)
                    && e.message.contains("the sign-in is kept"),
                "\(e.message)")
            #expect(Self.requests(t2).isEmpty && router.keepers[account.key]?.flight == nil)
            #expect(router.keepers[account.key]?.tokens?.refreshToken == "r1")
            let own = router.getToken(account, TokenRequest(), caller: ":1.1", now: Self.now)
            guard case .token(let a) = own.reply else { throw Failure("\(error): own not handed out: \(own.reply)") }
            #expect(a.tokens.accessToken == "own")
        }
    }
}
