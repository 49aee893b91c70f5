import Testing

@testable import LinkRouterCore

/// The person told when an account needs a sign-in (issue 34): once, however
/// many callers ask; again only after 15 minutes; a click begins the sign-in;
/// withdrawn when the account signs in; nothing waits without a server.
@Suite("Sign-in notices")
struct SignInNoticeTests {
    typealias A = AccountTokenTests
    let now = AccountTokenTests.now

    static func notices(_ t: Transition) -> [(OperationID, SignInNotice.Text)] {
        A.started(t).compactMap { if case .signInNotice(.show(let text)) = $0.1 { ($0.0, text) } else { nil } }
    }

    /// A router where `account` is known to be signed out (the keyring was read: nothing).
    func signedOut(_ account: Account) -> Router {
        var router = A.router(":1.1")
        router.apply(core: [.account(account.key, AccountTokens(tokens: nil, loaded: true))])
        return router
    }

    @Test(
        "five callers for a signed-out account: each refused at once, one notice naming the account and its provider; the next only after 15 minutes"
    )
    func once() throws {
        let account = try A.account()
        var router = signedOut(account)
        var shown: [(OperationID, SignInNotice.Text)] = []
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
        router.apply(core: router.completed(op, .signInNotice(.shown(.success(7))), now: now).core)
        #expect(router.isNotice(7) && !router.isNotice(8))
        router.apply(core: router.noticeClosed(7, reason: 2, now: now + 60).core)
        #expect(!router.isNotice(7) && router.running[op] == nil)
        let soon = router.accountCall(
            .getToken(account.name, TokenRequest()), accounts: [account], caller: ":1.1", now: now + 600)
        #expect(Self.notices(soon).isEmpty)
        let later = router.accountCall(
            .getToken(account.name, TokenRequest()), accounts: [account], caller: ":1.1",
            now: now + SignInNotice.repeatSeconds)
        #expect(Self.notices(later).count == 1)
    }

    @Test(
        "a click begins the account's sign-in, owned by no bus client, and the notification goes; another action or another account's id does nothing"
    )
    func click() throws {
        let account = try A.account()
        var router = signedOut(account)
        let t = router.accountCall(
            .getToken(account.name, TokenRequest()), accounts: [account], caller: ":1.1", now: now)
        let (op, _) = try #require(Self.notices(t).first)
        router.apply(core: t.core)
        router.apply(core: router.completed(op, .signInNotice(.shown(.success(3))), now: now).core)
        #expect(
            router.noticeInvoked(9, action: "default", inputs: Fixtures.inputs(), accounts: [account], now: now)
                .effects.isEmpty)
        let clicked = router.noticeInvoked(
            3, action: "default", inputs: Fixtures.inputs(), accounts: [account], now: now)
        #expect(clicked.effects.contains(.closeNotification(3)) && clicked.core.contains(.finish(op)))
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

    @Test("no notification server: the notice ends and nothing waits; a sign-in withdraws a notice that is up")
    func noServerAndWithdrawn() throws {
        let account = try A.account()
        var router = signedOut(account)
        let t = router.accountCall(
            .getToken(account.name, TokenRequest()), accounts: [account], caller: ":1.1", now: now)
        let (op, _) = try #require(Self.notices(t).first)
        router.apply(core: t.core)
        let none = router.completed(
            op, .signInNotice(.shown(.failure(RouterError(.internalError, "no server")))), now: now)
        #expect(none.core.contains(.finish(op)) && none.effects.isEmpty)
        router.apply(core: none.core)
        #expect(router.running.isEmpty)
        // Up, then the account signs in (a terminal login): withdrawn.
        var up = signedOut(account)
        let t2 = up.accountCall(.getToken(account.name, TokenRequest()), accounts: [account], caller: ":1.1", now: now)
        let (op2, _) = try #require(Self.notices(t2).first)
        up.apply(core: t2.core)
        up.apply(core: up.completed(op2, .signInNotice(.shown(.success(5))), now: now).core)
        var turn = Turn(up, now: now)
        let kept = AccountBook.keepTokens(A.tokens("a", expiresIn: 3600), for: account.key, inMemoryOnly: false, &turn)
        #expect(kept.effects.contains(.closeNotification(5)) && kept.core.contains(.finish(op2)))
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
