import Testing

@testable import LinkRouterCore

/// The person told when an account needs a sign-in (issue 34): once, however
/// many callers ask; again only after 15 minutes; a click begins the sign-in;
/// withdrawn when the account signs in; nothing waits without a server.
@Suite("Sign-in notices")
struct AccountNoticeTests {
    typealias A = AccountTokenTests
    let now = AccountTokenTests.now

    static func notices(_ t: Transition) -> [(OperationID, AccountNotice.Text)] {
        A.started(t).compactMap { if case .accountNotice(.show(let text)) = $0.1 { ($0.0, text) } else { nil } }
    }

    /// A router where a caller found `account` signed out, and the notice that asks the person (not shown yet).
    func asked(_ account: Account) throws -> (Router, OperationID) {
        var router = signedOut(account)
        let t = router.accountCall(
            .getToken(account.name, TokenRequest()), accounts: [account], caller: ":1.1", now: now)
        let (op, _) = try #require(Self.notices(t).first)
        router.apply(core: t.core)
        return (router, op)
    }

    /// A router where `account` is known to be signed out (the keyring was read: nothing).
    func signedOut(_ account: Account) -> Router {
        var router = A.router(":1.1")
        router.apply(core: [.account(account.key, AccountKeeper(tokens: nil, loaded: true))])
        return router
    }

    @Test(
        "five callers for a signed-out account: each refused at once, one notice naming the account and its provider; the next only after 15 minutes"
    )
    func once() throws {
        let account = try A.account()
        var router = signedOut(account)
        var shown: [(OperationID, AccountNotice.Text)] = []
        for _ in 0..<5 {
            let t = router.accountCall(
                .getToken(account.name, TokenRequest()), accounts: [account], caller: ":1.1", now: now)
            guard case .refused(let e) = t.reply else { throw A.Failure("\(t.reply)") }
            #expect(e.code == .notSignedIn)
            shown += Self.notices(t)
            router.apply(core: t.core)
        }
        let (op, text) = try #require(shown.first)
        #expect(shown.count == 1)
        #expect(text.summary == "Sign in to work" && text.body.contains(A.issuer) && text.action.key == "default")
        // Shown, then dismissed by the person: none again before 15 minutes have passed.
        router.apply(core: router.completed(op, .accountNotice(.shown(.success(Fixtures.shown(7)))), now: now).core)
        #expect(
            router.isNotice(7, server: Fixtures.notificationServer)
                && !router.isNotice(8, server: Fixtures.notificationServer))
        router.apply(core: router.noticeClosed(7, reason: 2, server: Fixtures.notificationServer, now: now + 60).core)
        #expect(!router.isNotice(7, server: Fixtures.notificationServer) && router.running[op] == nil)
        let soon = router.accountCall(
            .getToken(account.name, TokenRequest()), accounts: [account], caller: ":1.1", now: now + 600)
        #expect(Self.notices(soon).isEmpty)
        let later = router.accountCall(
            .getToken(account.name, TokenRequest()), accounts: [account], caller: ":1.1",
            now: now + AccountNotice.repeatSeconds)
        #expect(Self.notices(later).count == 1)
    }

    @Test(
        "a click begins the account's sign-in, owned by no bus client, and the notification goes; another action or another account's id does nothing"
    )
    func click() throws {
        let account = try A.account()
        var (router, op) = try asked(account)
        router.apply(core: router.completed(op, .accountNotice(.shown(.success(Fixtures.shown(3)))), now: now).core)
        #expect(
            router.noticeInvoked(
                9, action: "default", server: Fixtures.notificationServer, inputs: Fixtures.inputs(),
                accounts: [account], now: now
            )
            .effects.isEmpty)
        let clicked = router.noticeInvoked(
            3, action: "default", server: Fixtures.notificationServer, inputs: Fixtures.inputs(), accounts: [account],
            now: now)
        #expect(clicked.effects.contains(.closeNotification(Fixtures.shown(3))) && clicked.core.contains(.finish(op)))
        // The begin of a keyring account's login asks the keyring first, then goes on as any sign-in.
        guard
            case (let beginOp, .begin(.probeKeyring(account.key)))? = A.started(clicked).first(where: {
                if case .begin = $0.1 { true } else { false }
            })
        else { throw A.Failure("no sign-in begun: \(clicked.effects)") }
        guard
            case .begin(let begin)? = clicked.core.compactMap({ c -> Running? in
                if case .track(beginOp, let m) = c { m } else { nil }
            }).first
        else { throw A.Failure("the begin is not tracked") }
        #expect(begin.caller == "" && begin.request.account == "work" && begin.request.openBrowser)
        #expect(begin.request.issuer == account.issuer && begin.request.clientID == account.clientID)
    }

    @Test(
        "a click whose sign-in cannot begin (no browser to be found) or whose browser cannot start tells the person in a notification what to do, as nobody else would hear"
    )
    func clickWithoutABrowser() throws {
        let account = try A.account()
        let noBrowser = RouterError(.browserFailed, "no default web browser is set")
        for lookup in [Result<String, RouterError>.failure(noBrowser), .success("b.desktop")] {
            var (router, op) = try asked(account)
            router.apply(
                core: router.completed(op, .accountNotice(.shown(.success(Fixtures.shown(3)))), now: now).core)
            var inputs = Fixtures.inputs()
            inputs.browser = lookup
            var t = router.noticeInvoked(
                3, action: "default", server: Fixtures.notificationServer, inputs: inputs, accounts: [account],
                now: now)
            router.apply(core: t.core)
            let (begin, _) = try #require(A.started(t).first { if case .begin = $0.1 { true } else { false } })
            // The begin's work, answered as the daemon would, until it ends.
            while case (_, .begin(let work))? = A.started(t).first(where: { $0.0 == begin }) {
                let event: Begin.Event =
                    switch work {
                    case .probeKeyring: .keyring(.success(nil))
                    case .discover: .metadata(.success(A.metadata))
                    case .listen: .listening(.success(4711))
                    case .push, .authorizeDevice: throw A.Failure("unexpected \(work)")
                    }
                t = router.completed(begin, .begin(event), now: now)
                router.apply(core: t.core)
            }
            let told = AccountNotice.signInFailed("work", why: noBrowser.message)
            guard case .notify(let summary, let body) = told else { throw A.Failure("\(told)") }
            #expect(summary == "Could not sign in to work" && body.contains("linkctl login work"))
            switch lookup {
            case .failure:
                #expect(t.effects.contains(told) && t.changes.isEmpty, "\(t.effects)")
            case .success:
                // The browser is named; it does not start: the executor undoes the session and asks what follows.
                let open = try #require(
                    t.effects.first { if case .openBrowser = $0 { true } else { false } })
                #expect(!t.effects.contains(told))
                let failed = router.effectFailed(open, undone: t.changes, error: noBrowser, now: now)
                #expect(failed.effects.first == told && failed.changes.isEmpty, "\(failed.effects)")
                // A bus caller's browser that fails is that caller's to hear (its reply): no notification.
                var owned = t.changes
                if case .insert(var s) = owned[0] {
                    s.owner = Caller(name: ":1.1")
                    owned[0] = .insert(s)
                }
                #expect(router.effectFailed(open, undone: owned, error: noBrowser, now: now) == Transition())
            }
        }
    }

    @Test("no notification server: the notice ends and nothing waits; a sign-in withdraws a notice that is up")
    func noServerAndWithdrawn() throws {
        let account = try A.account()
        var (router, op) = try asked(account)
        let none = router.completed(
            op, .accountNotice(.shown(.failure(RouterError(.internalError, "no server")))), now: now)
        #expect(none.core.contains(.finish(op)) && none.effects.isEmpty)
        router.apply(core: none.core)
        #expect(router.running.isEmpty)
        // Up, then the account signs in (a terminal login): withdrawn.
        var (up, op2) = try asked(account)
        up.apply(core: up.completed(op2, .accountNotice(.shown(.success(Fixtures.shown(5)))), now: now).core)
        var turn = Turn(up, now: now)
        let kept = AccountKeeper.keepTokens(
            A.tokens("a", expiresIn: 3600), for: account.key, inMemoryOnly: false, &turn)
        #expect(kept.effects.contains(.closeNotification(Fixtures.shown(5))) && kept.core.contains(.finish(op2)))
    }
}

extension AccountNoticeTests {
    @Test(
        "a caller that signs in itself (interactive) is answered NotSignedIn with no notice; a waiter that is not gets one"
    )
    func interactive() throws {
        let account = try A.account()
        let router = signedOut(account)
        var asked = TokenRequest()
        asked.interactive = true
        let t = router.accountCall(.getToken(account.name, asked), accounts: [account], caller: ":1.1", now: now)
        guard case .refused(let e) = t.reply else { throw A.Failure("\(t.reply)") }
        #expect(e.code == .notSignedIn && Self.notices(t).isEmpty)
        // Not read yet: both wait on the read; the notice is for the one that is not interactive.
        var fresh = A.router(":1.1")
        let first = fresh.accountCall(.getToken(account.name, asked), accounts: [account], caller: ":1.1", now: now)
        let (read, _) = try #require(A.requests(first).first)
        fresh.apply(core: first.core)
        let alone = fresh.completed(read, .flight(.read(.success(nil))), now: now)
        #expect(Self.notices(alone).isEmpty)
        let second = fresh.accountCall(
            .getToken(account.name, TokenRequest()), accounts: [account], caller: ":1.1", now: now)
        fresh.apply(core: second.core)
        let both = fresh.completed(read, .flight(.read(.success(nil))), now: now)
        #expect(Self.notices(both).count == 1)
    }

    @Test(
        "a refresh whose set the locked keyring cannot take: one notice to unlock it, naming the account; its click asks the Secret Service to unlock; the next write that works withdraws a notice still up"
    )
    func unlockKeyring() throws {
        let account = try A.account()
        var router = A.router(":1.1")
        let old = A.tokens("a", expiresIn: 10)
        router.apply(core: [.account(account.key, AccountKeeper(tokens: old, loaded: true))])
        // A refresh (its token is short of min_valid) whose write meets a locked keyring.
        let t = router.accountCall(
            .getToken(account.name, TokenRequest()), accounts: [account], caller: ":1.1", now: now)
        let (flight, _) = try #require(A.requests(t).first)
        router.apply(core: t.core)
        router.apply(core: router.discovered(flight, A.metadata, now: now).core)
        let fresh = A.tokens("b", expiresIn: 3600, refresh: "r2")
        router.apply(core: router.completed(flight, .flight(.refreshed(.success(fresh), used: "r1")), now: now).core)
        let locked = RouterError(.keyringLocked, "locked")
        let w = router.completed(flight, .flight(.written(locked, fresh)), now: now)
        let (op, text) = try #require(Self.notices(w).first)
        #expect(Self.notices(w).count == 1)
        #expect(text.summary == "Unlock the keyring for work" && text.body.contains("work's new tokens"))
        #expect(text.action.label == "Unlock")
        router.apply(core: w.core)
        #expect(router.keepers[account.key]?.unsaved != nil)
        router.apply(core: router.completed(op, .accountNotice(.shown(.success(Fixtures.shown(11)))), now: now).core)
        // Another write that fails: no second notice.
        var again = Turn(router, now: now + 5)
        let retry = TokenFlight.writing(fresh, account.key, account: nil, state: router.keepers[account.key]!, &again)
        let (write, _) = try #require(A.requests(retry).first)
        router.apply(core: retry.core)
        let second = router.completed(write, .flight(.written(locked, fresh)), now: now + 5)
        #expect(Self.notices(second).isEmpty)
        router.apply(core: second.core)

        // The click: the notification goes and the keyring is asked; the notice's work ends when it has asked.
        let clicked = router.noticeInvoked(
            11, action: "default", server: Fixtures.notificationServer, inputs: Fixtures.inputs(), accounts: [account],
            now: now + 6)
        #expect(clicked.effects.contains(.closeNotification(Fixtures.shown(11))))
        #expect(A.started(clicked).contains { $0.0 == op && $0.1 == .accountNotice(.unlockKeyring) })
        #expect(!A.started(clicked).contains { if case .begin = $0.1 { true } else { false } }, "no sign-in")
        router.apply(core: clicked.core)
        #expect(
            router.noticeClosed(11, reason: 3, server: Fixtures.notificationServer, now: now + 6).core.isEmpty,
            "its own close is not the end")
        let asked = router.completed(op, .accountNotice(.unlockAsked(.success(true))), now: now + 7)
        #expect(asked.core.contains(.finish(op)))
        router.apply(core: asked.core)

        // Unlocked by the person: the write works, and a notice still up (shown again later) is withdrawn.
        var later = router
        var turn = Turn(later, now: now + AccountNotice.repeatSeconds)
        let up = AccountNotice.asking(account.key, .unlockKeyring, why: "test", &turn)
        let (upOp, _) = try #require(Self.notices(up).first)
        later.apply(core: up.core)
        later.apply(core: later.completed(upOp, .accountNotice(.shown(.success(Fixtures.shown(12)))), now: now).core)
        var turn2 = Turn(later, now: now + AccountNotice.repeatSeconds)
        let retry2 = TokenFlight.writing(fresh, account.key, account: nil, state: later.keepers[account.key]!, &turn2)
        let (write2, _) = try #require(A.requests(retry2).first)
        later.apply(core: retry2.core)
        let landed = later.completed(write2, .flight(.written(nil, fresh)), now: now + AccountNotice.repeatSeconds)
        #expect(landed.effects.contains(.closeNotification(Fixtures.shown(12))) && landed.core.contains(.finish(upOp)))
        later.apply(core: landed.core)
        #expect(later.keepers[account.key]?.unsaved == nil && later.keepers[account.key]?.notice == nil)
    }
}

/// `AccountChanged` goes only to the clients that may use the account (issue 34).
@Suite("AccountChanged's receivers")
struct AccountNewsTests {
    @Test(
        "an app's own account's news goes to that app's connections only; the user's to the host's programs only; an unknown caller hears nothing"
    )
    func receivers() throws {
        var router = Router()
        router.apply(core: [
            .caller(":1.1", .host), .caller(":1.2", .flatpak("org.example.Chat")), .caller(":1.3", .unknown),
            .caller(":1.4", .flatpak("org.example.Other")), .caller(":1.5", .host),
        ])
        let users = AccountKey(qualifiedName: "work", issuer: "https://id.example.com")
        let chats = AccountKey(qualifiedName: "flatpak:org.example.Chat/work", issuer: "https://id.example.com")
        let user = try #require(AccountNews.of(users, .signedIn, expiresAt: 5, in: router))
        #expect(user.destinations == [":1.1", ":1.5"] && user.account == "work" && user.expiresAt == 5)
        let app = try #require(AccountNews.of(chats, .signedOut, why: "refused", in: router))
        #expect(app.destinations == [":1.2"] && app.account == "work" && app.why == "refused")
        #expect(AccountNews.of(users, .refreshed, in: Router()) == nil, "nobody to tell")
    }
}

extension AccountNoticeTests {
    @Test(
        "a notice outlives nothing: the stopping daemon withdraws its sign-in notice and carries the need; the next daemon asks again for a declared account, not for one no longer declared"
    )
    func carriedAcrossAStop() throws {
        let account = try A.account()
        var (router, op) = try asked(account)
        router.apply(core: router.completed(op, .accountNotice(.shown(.success(Fixtures.shown(7)))), now: now).core)
        let stopping = router.stopping()
        #expect(stopping.effects.contains(.closeNotification(Fixtures.shown(7))), "\(stopping.effects)")
        #expect(stopping.effects.contains(.carrySignIns([account.key])), "\(stopping.effects)")
        let next = A.router(":1.1")
        let again = next.signInsCarried([account.key], accounts: [account], now: now)
        #expect(Self.notices(again).map(\.1.summary) == ["Sign in to work"], "\(again.effects)")
        #expect(Self.notices(next.signInsCarried([account.key], accounts: [], now: now)).isEmpty)
    }
}
