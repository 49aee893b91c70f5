import Testing

@testable import LinkRouterCore

/// The person's yes before their account goes to a sandboxed app (`ConsentPrompt`), as the core decides it.
@Suite("Consent prompts")
struct ConsentPromptTests {
    typealias A = AccountTokenTests
    typealias Failure = AccountTokenTests.Failure
    typealias Answer = ConsentPrompt.Answer
    static let app = CallerApp.flatpak("org.example.IDE")
    /// The nonce the daemon drew for the prompts shown in these tests.
    static let nonce = "n0nce"

    /// A router whose `:1.9` is the app, with the person's `work` signed in.
    static func world() throws -> (Router, Account) {
        var r = Router()
        let account = try A.account()
        r.apply(core: [
            .caller(":1.9", app), .caller(":1.8", .flatpak("org.example.Other")), .caller(":1.1", .host),
            .account(account.key, AccountKeeper(tokens: A.tokens("at", expiresIn: 3600), loaded: true)),
        ])
        return (r, account)
    }

    static func prompt(_ t: Transition) -> OperationID? {
        A.started(t).first { if case .consent(.show) = $0.1 { true } else { false } }?.0
    }

    static func question(_ t: Transition) -> ConsentPrompt.Question? {
        for (_, o) in A.started(t) { if case .consent(.show(let q)) = o { return q } }
        return nil
    }

    /// The server shows prompt `op` as `id`.
    static func show(_ r: inout Router, _ op: OperationID, as id: UInt32) {
        r.apply(
            core: r.completed(
                op, .consent(.shown(.success(ConsentPrompt.Shown(notification: Fixtures.shown(id), nonce: nonce)))),
                now: A.now
            ).core)
    }

    /// The person picks `answer` on the prompt the server shows as `id`.
    static func pick(_ answer: Answer, _ r: Router, _ id: UInt32, now: Int64 = A.now) -> Transition {
        r.consentAnswered(id, action: answer.key(nonce: nonce), server: Fixtures.notificationServer, now: now)
    }

    static func request(scope: String? = nil, resources: [String] = [], audience: String? = nil) -> TokenRequest {
        var r = TokenRequest()
        r.scope = scope
        r.resources = resources
        r.audience = audience
        return r
    }

    static func target(scope: String? = nil, resources: [String] = [], audience: String? = nil) throws -> TokenTarget {
        try TokenTarget.make(scope: scope, resources: resources, audience: audience, granted: "openid", account: "work")
    }

    @Test(
        "a sandboxed app's GetToken for the person's account is held on one prompt per app and account, naming the verified app, the account and its issuer and what Always allow covers, with a 60 s deadline; a second call joins it, one for another target waits behind it and is asked about after, another app gets its own; a host program and the app's own account are never asked"
    )
    func oneAtATime() throws {
        var (r, work) = try Self.world()
        work.grants = []
        let first = r.accountCall(.getToken("work", TokenRequest()), accounts: [work], caller: ":1.9", now: A.now)
        guard case .held(let held) = first.reply, let promptOp = Self.prompt(first), let q = Self.question(first) else {
            throw Failure("not asked: \(first.reply)")
        }
        #expect(q.summary == "Allow org.example.IDE to use your account work?")
        #expect(q.body.contains("org.example.IDE") && q.body.contains(A.issuer) && q.body.contains("Flatpak"))
        #expect(q.body.contains("“Always allow” lets it have this account's tokens"), "\(q.body)")
        #expect(q.answers.map(\.label) == ["Allow once", "Always allow", "Deny"])
        #expect(A.started(first).contains { $0 == (promptOp, .consent(.deadline(milliseconds: 60_000))) })
        #expect(A.answers(first).isEmpty, "no token before the person's yes")
        r.apply(core: first.core)
        let second = r.accountCall(.getToken("work", TokenRequest()), accounts: [work], caller: ":1.9", now: A.now)
        guard case .held(let held2) = second.reply else { throw Failure("not held") }
        #expect(Self.prompt(second) == nil, "the same prompt")
        r.apply(core: second.core)
        // Another target (normalised: "openid" however spelled) waits behind the prompt: no second prompt on screen.
        let narrow = r.accountCall(
            .getToken("work", Self.request(scope: "openid openid")), accounts: [work], caller: ":1.9", now: A.now)
        guard case .held(let queued) = narrow.reply else { throw Failure("not held") }
        #expect(Self.prompt(narrow) == nil, "one prompt per app and account")
        r.apply(core: narrow.core)
        let other = r.accountCall(.getToken("work", TokenRequest()), accounts: [work], caller: ":1.8", now: A.now)
        #expect(Self.prompt(other) != nil, "another app is asked about on its own")
        let host = r.accountCall(.getToken("work", TokenRequest()), accounts: [work], caller: ":1.1", now: A.now)
        guard case .token(let hostAnswer) = host.reply, Self.prompt(host) == nil else {
            throw Failure("a host program was asked: \(host.reply)")
        }
        #expect(hostAnswer.tokens.accessToken == "at")

        // Allow once: both held calls answered with the token; the prompt withdrawn and its timer stopped; the queued
        // call (another target) is not carried by this yes: it gets a prompt of its own.
        Self.show(&r, promptOp, as: 7)
        #expect(r.isConsentPrompt(7, server: Fixtures.notificationServer))
        let allowed = Self.pick(.allowOnce, r, 7)
        let answers = A.answers(allowed)
        for op in [held, held2] {
            guard case .token(let t)? = answers[op] else { throw Failure("\(op) not answered: \(answers)") }
            #expect(t.tokens.accessToken == "at")
        }
        #expect(answers[queued] == nil, "a yes for the account's own token is not a yes for the narrower one")
        guard let next = Self.question(allowed) else { throw Failure("the queued call was not asked about") }
        #expect(next.body.contains("scope “openid”") && next.body.contains("covers only such a token"), "\(next.body)")
        #expect(
            allowed.effects.contains(.closeNotification(Fixtures.shown(7)))
                && allowed.effects.contains(.cancel(promptOp)))
        #expect(!A.started(allowed).contains { if case .consent(.remember) = $0.1 { true } else { false } })
        r.apply(core: allowed.core)
        #expect(!r.isConsentPrompt(7, server: Fixtures.notificationServer))
        // Once: the next call asks again, once the prompt for the narrower token (up now) is answered.
        let again = r.accountCall(.getToken("work", TokenRequest()), accounts: [work], caller: ":1.9", now: A.now)
        guard case .held = again.reply else { throw Failure("answered without the person: \(again.reply)") }
        #expect(Self.prompt(again) == nil && A.answers(again).isEmpty)
    }

    @Test(
        "Deny, a close, no answer by the deadline, an answer the prompt never offered (a replaced notification's button: a bare key, another prompt's nonce, default), or no notification server: every waiting call is AccessDenied saying why, and no token is in any answer; after a Deny the app is not asked again for a minute; another server's signal about the id is nobody's answer"
    )
    func refusals() throws {
        for (event, says) in [
            (ConsentPrompt.Event.invoked(action: Answer.deny.key(nonce: Self.nonce)), "denied"),
            (.closed(reason: 2), "closed the prompt"),
            (.expired, "did not answer within 60 s"),
            (.invoked(action: "allow-always"), "never offered"),
            (.invoked(action: Answer.allowAlways.key(nonce: "another-prompts-nonce")), "never offered"),
            (.invoked(action: "default"), "never offered"),
        ] {
            var (r, work) = try Self.world()
            work.grants = []
            let call = r.accountCall(.getToken("work", TokenRequest()), accounts: [work], caller: ":1.9", now: A.now)
            guard case .held(let held) = call.reply, let promptOp = Self.prompt(call) else {
                throw Failure("not asked")
            }
            r.apply(core: call.core)
            Self.show(&r, promptOp, as: 4)
            // Another server (or any client) saying the same about id 4 is not the person.
            #expect(
                r.consentAnswered(4, action: Answer.allowAlways.key(nonce: Self.nonce), server: ":1.66", now: A.now)
                    .effects.isEmpty)
            #expect(r.consentClosed(4, reason: 2, server: ":1.66", now: A.now).effects.isEmpty)
            let t = r.completed(promptOp, .consent(event), now: A.now)
            guard case .refused(let e)? = A.answers(t)[held] else { throw Failure("\(event): not refused") }
            #expect(e.code == .accessDenied && e.message.contains(says), "\(e.message)")
            #expect(A.requests(t).isEmpty, "nothing asked of a provider or the keyring; no grant written")
            r.apply(core: t.core)
            #expect(r.running.isEmpty)
            // After a Deny, the app is refused without a prompt for a minute; then asked again. Any other end asks
            // again at once.
            let next = r.accountCall(
                .getToken("work", TokenRequest()), accounts: [work], caller: ":1.9", now: A.now + 1)
            if says == "denied" {
                guard case .refused(let again) = next.reply else { throw Failure("asked again at once after Deny") }
                #expect(again.code == .accessDenied && again.message.contains("denied") && Self.prompt(next) == nil)
                let later = r.accountCall(
                    .getToken("work", TokenRequest()), accounts: [work], caller: ":1.9",
                    now: A.now + AccountKeeper.coolOffSeconds)
                #expect(Self.prompt(later) != nil)
            } else {
                #expect(Self.prompt(next) != nil)
            }
        }
        // No server: refused at once.
        var (r, work) = try Self.world()
        work.grants = []
        let call = r.accountCall(.getToken("work", TokenRequest()), accounts: [work], caller: ":1.9", now: A.now)
        guard case .held(let held) = call.reply, let promptOp = Self.prompt(call) else { throw Failure("not asked") }
        r.apply(core: call.core)
        let none = r.completed(
            promptOp, .consent(.shown(.failure(RouterError(.internalError, "no server")))), now: A.now)
        guard case .refused(let e)? = A.answers(none)[held] else { throw Failure("not refused") }
        #expect(e.message.contains("no one could be asked"))
    }

    @Test(
        "Always allow keeps the whole target it was asked for (scope, resources, audience), then the calls go on; a grant covers its target and narrower ones of the same kind only: an audience-only or resource-only yes never covers the account's own token, another audience or another resource; a yes for the account's own covers narrower ones; a grant's write that fails still allows this once"
    )
    func always() throws {
        var (r, work) = try Self.world()
        let calendar = Self.request(audience: "calendar-readonly")
        let call = r.accountCall(.getToken("work", calendar), accounts: [work], caller: ":1.9", now: A.now)
        guard case .held(let held) = call.reply, let promptOp = Self.prompt(call), let q = Self.question(call) else {
            throw Failure("not asked")
        }
        #expect(q.body.contains("a token for audience “calendar-readonly” of your account work"), "\(q.body)")
        #expect(q.body.contains("covers only such a token (or a narrower one), never the account's own"))
        r.apply(core: call.core)
        Self.show(&r, promptOp, as: 3)
        let said = Self.pick(.allowAlways, r, 3)
        let grant = AccountGrant(
            app: Self.app, target: try Self.target(audience: "calendar-readonly"), grantedAt: A.now)
        #expect(A.started(said).contains { $0 == (promptOp, .consent(.remember(work, grant))) })
        #expect(said.effects.contains(.closeNotification(Fixtures.shown(3))))
        #expect(A.answers(said).isEmpty, "answered once the grant is kept")
        r.apply(core: said.core)
        // A late deadline or close while the grant is written changes nothing.
        #expect(A.answers(r.completed(promptOp, .consent(.expired), now: A.now)).isEmpty)
        #expect(A.answers(r.completed(promptOp, .consent(.closed(reason: 3)), now: A.now)).isEmpty)
        let kept = r.completed(promptOp, .consent(.remembered(nil)), now: A.now)
        // The narrower token is the account's to get: the call goes on to its flight (a refresh asking for it).
        #expect(
            A.answers(kept)[held] == nil && A.requests(kept).contains { if case .flight = $0.1 { true } else { false } }
        )
        r.apply(core: kept.core)

        // With the grant on the declaration (the daemon attaches it), the same target is not asked about again; the
        // account's own token, another audience and a resource are.
        work.grants = [grant]
        #expect(
            Self.prompt(r.accountCall(.getToken("work", calendar), accounts: [work], caller: ":1.9", now: A.now)) == nil
        )
        for wider in [
            TokenRequest(), Self.request(audience: "mail"), Self.request(resources: ["https://api.example/"]),
            Self.request(scope: "openid", audience: "calendar-readonly"),
        ] {
            var fresh = r
            fresh.apply(core: [.caller(":1.7", Self.app)])
            let asked = fresh.accountCall(.getToken("work", wider), accounts: [work], caller: ":1.7", now: A.now)
            #expect(Self.prompt(asked) != nil, "\(wider) was covered by a grant for audience calendar-readonly")
        }

        // The coverage rule, each kind.
        let audience = grant
        let resources = AccountGrant(
            app: Self.app, target: try Self.target(resources: ["https://a.example/", "https://b.example/"]),
            grantedAt: 0)
        let scope = AccountGrant(app: Self.app, target: try Self.target(scope: "openid"), grantedAt: 0)
        let own = AccountGrant(app: Self.app, target: TokenTarget(), grantedAt: 0)
        let other = CallerApp.flatpak("org.example.Other")
        let calendarOnly = try Self.target(audience: "calendar-readonly")
        let (a, b, c) = (
            try Self.target(resources: ["https://a.example/"]), try Self.target(resources: ["https://b.example/"]),
            try Self.target(resources: ["https://c.example/"])
        )
        let openid = try Self.target(scope: "openid")
        let aWithAudience = try Self.target(resources: ["https://a.example/"], audience: "x")
        let openidAtA = try Self.target(scope: "openid", resources: ["https://a.example/"])
        #expect(!audience.covers(Self.app, TokenTarget()) && !audience.covers(other, calendarOnly))
        #expect(resources.covers(Self.app, b) && resources.covers(Self.app, a) && !resources.covers(Self.app, c))
        #expect(!resources.covers(Self.app, TokenTarget()) && !resources.covers(Self.app, openid))
        #expect(!resources.covers(Self.app, aWithAudience), "an audience besides was not asked about")
        #expect(scope.covers(Self.app, openid) && !scope.covers(Self.app, TokenTarget()))
        #expect(!scope.covers(Self.app, openidAtA))
        #expect(own.covers(Self.app, openid) && own.covers(Self.app, aWithAudience))

        // A target the account cannot give is refused before anyone is asked (nothing shown, nothing kept).
        let refused = r.accountCall(
            .getToken("work", Self.request(scope: "openid email")), accounts: [work], caller: ":1.9", now: A.now)
        guard case .refused(let e) = refused.reply else { throw Failure("asked about a scope beyond the account's") }
        #expect(e.code == .invalidArgument && Self.prompt(refused) == nil)
        for odd in [
            Self.request(scope: "openid\nbank"),
            Self.request(audience: String(repeating: "a", count: TokenTarget.maxAudienceBytes + 1)),
            Self.request(audience: "<b>Verified</b> x\u{7}"),
        ] {
            #expect(
                Self.prompt(r.accountCall(.getToken("work", odd), accounts: [work], caller: ":1.9", now: A.now)) == nil)
        }

        // The write failed: allowed this once, said in the log.
        var (r2, work2) = try Self.world()
        work2.grants = []
        let call2 = r2.accountCall(.getToken("work", TokenRequest()), accounts: [work2], caller: ":1.9", now: A.now)
        guard case .held(let held2) = call2.reply, let promptOp2 = Self.prompt(call2) else {
            throw Failure("not asked")
        }
        r2.apply(core: call2.core)
        Self.show(&r2, promptOp2, as: 8)
        r2.apply(core: Self.pick(.allowAlways, r2, 8).core)
        let failed = r2.completed(
            promptOp2, .consent(.remembered(RouterError(.storageFailed, "disk full"))), now: A.now)
        guard case .token? = A.answers(failed)[held2] else { throw Failure("not allowed once") }
        #expect(
            failed.effects.contains {
                if case .log(let l) = $0 { l.text.contains("could not be remembered") } else { false }
            })
    }

    @Test(
        "bounds: at most two prompts of one app and eight in all are up at once (the next is LimitsExceeded, nothing shown); one connection holds at most 64 account calls and one app 256, the next refused before anything is held"
    )
    func bounds() throws {
        var r = Router()
        var accounts: [Account] = []
        for n in 0..<10 { accounts.append(try A.account("work\(n)")) }
        r.apply(
            core: [.caller(":1.9", Self.app)] + (0..<6).map { .caller(":2.\($0)", .flatpak("org.example.App\($0)")) })
        var shown = 0
        for n in 0..<3 {
            let t = r.accountCall(.getToken("work\(n)", TokenRequest()), accounts: accounts, caller: ":1.9", now: A.now)
            if n < 2 {
                #expect(Self.prompt(t) != nil)
                shown += 1
            } else {
                guard case .refused(let e) = t.reply else { throw Failure("a third prompt of one app: \(t.reply)") }
                #expect(e.code == .limitsExceeded && e.message.contains("flatpak:org.example.IDE has 2 questions"))
                #expect(Self.prompt(t) == nil)
            }
            r.apply(core: t.core)
        }
        for app in 0..<6 {
            let t = r.accountCall(
                .getToken("work9", TokenRequest()), accounts: accounts, caller: ":2.\(app)", now: A.now)
            if shown < r.limits.maxPrompts {
                #expect(Self.prompt(t) != nil)
                shown += 1
            } else {
                guard case .refused(let e) = t.reply else { throw Failure("a ninth prompt: \(t.reply)") }
                #expect(e.code == .limitsExceeded && e.message.contains("there are 8 questions"))
            }
            r.apply(core: t.core)
        }
        // Held calls: the app's connection joins its prompt up to the bound, then is refused.
        var held = 0
        var refusedAt: Int?
        for n in 0..<70 {
            let t = r.accountCall(.getToken("work0", TokenRequest()), accounts: accounts, caller: ":1.9", now: A.now)
            if case .refused(let e) = t.reply {
                #expect(e.code == .limitsExceeded && e.message.contains("64 account calls"))
                refusedAt = refusedAt ?? n
            } else {
                held += 1
            }
            r.apply(core: t.core)
        }
        #expect(refusedAt == 62 && held == 62, "two calls were held already (the two prompts'): \(refusedAt ?? -1)")
        // Over several connections, the app's bound.
        var limits = Limits()
        limits.maxHeldAccountCallsPerApp = 5
        var small = Router(limits: limits)
        small.apply(core: (0..<6).map { .caller(":3.\($0)", Self.app) })
        var outcomes: [Bool] = []
        for c in 0..<6 {
            let t = small.accountCall(
                .getToken("work0", TokenRequest()), accounts: accounts, caller: ":3.\(c)", now: A.now)
            if case .refused(let e) = t.reply {
                outcomes.append(e.code == .limitsExceeded)
            } else {
                outcomes.append(false)
            }
            small.apply(core: t.core)
        }
        #expect(outcomes == [false, false, false, false, false, true])
    }

    @Test(
        "the app leaves while the person is asked: its calls (waiting and queued) go with it, the prompt is withdrawn, and an answer reaches no one; at a stop the calls hear why and the notification goes"
    )
    func appLeaves() throws {
        var (r, work) = try Self.world()
        work.grants = []
        let call = r.accountCall(.getToken("work", TokenRequest()), accounts: [work], caller: ":1.9", now: A.now)
        guard case .held(let held) = call.reply, let promptOp = Self.prompt(call) else { throw Failure("not asked") }
        r.apply(core: call.core)
        let queuedCall = r.accountCall(
            .getToken("work", Self.request(scope: "openid")), accounts: [work], caller: ":1.9", now: A.now)
        guard case .held(let queued) = queuedCall.reply else { throw Failure("not held") }
        r.apply(core: queuedCall.core)
        // (Stopping instead: the prompt's calls are answered and its notification withdrawn.)
        var stopping = r
        Self.show(&stopping, promptOp, as: 5)
        let stopped = stopping.stopping()
        #expect(A.answers(stopped)[held] != nil && A.answers(stopped)[queued] != nil)
        #expect(stopped.effects.contains(.closeNotification(Fixtures.shown(5))))
        let gone = r.ownerGone(":1.9", now: A.now)
        #expect(gone.effects.contains(.forget(held)) && gone.effects.contains(.forget(queued)))
        r.apply(core: gone.core)
        // Nobody is left to ask for: the prompt is withdrawn and its timer stopped; a late answer reaches nothing.
        #expect(gone.core.contains(.finish(promptOp)) && gone.effects.contains(.cancel(promptOp)))
        let allowed = r.completed(
            promptOp, .consent(.invoked(action: Answer.allowOnce.key(nonce: Self.nonce))), now: A.now)
        #expect(A.answers(allowed).isEmpty && A.requests(allowed).isEmpty)
        // The server's answer to the show, arriving after: its notification goes too.
        let late = ConsentPrompt.Shown(notification: Fixtures.shown(9), nonce: Self.nonce)
        #expect(
            r.completed(promptOp, .consent(.shown(.success(late))), now: A.now).effects == [
                .closeNotification(Fixtures.shown(9))
            ])
    }

    @Test(
        "an account declared confirm=true: a host program's GetToken is asked each time, its prompt per connection, naming the program the daemon describes (in the summary only when it is a plain word), with Allow once and Deny only; an account without it is answered at once"
    )
    func hostConfirm() throws {
        var r = Router()
        var request = AccountRequest()
        request.issuer = A.issuer
        request.clientID = "cli"
        request.confirm = true
        let work = try Account.make(name: "work", request, owner: .user)
        let plain = try A.account("plain")
        r.apply(core: [
            .caller(":1.1", .host), .caller(":1.2", .host),
            .account(work.key, AccountKeeper(tokens: A.tokens("at", expiresIn: 3600), loaded: true)),
            .account(plain.key, AccountKeeper(tokens: A.tokens("pt", expiresIn: 3600), loaded: true)),
        ])
        guard
            case .token = r.accountCall(
                .getToken("plain", TokenRequest()), accounts: [work, plain], caller: ":1.1", now: A.now
            ).reply
        else { throw Failure("an account without confirm was asked about") }
        let call = r.accountCall(
            .getToken("work", TokenRequest()), accounts: [work, plain], caller: ":1.1", now: A.now)
        guard case .held(let held) = call.reply,
            let (promptOp, first) = A.started(call).first(where: { if case .consent = $0.1 { true } else { false } })
        else { throw Failure("not asked: \(call.reply)") }
        #expect(first == .consent(.describe(caller: ":1.1")))
        // Asked by issuer, the same account asks the same (the pick does not skip the person).
        var byIssuer = TokenRequest()
        byIssuer.issuer = A.issuer
        let picked = r.accountCall(.getToken("", byIssuer), accounts: [work], caller: ":1.1", now: A.now)
        #expect(
            A.started(picked).contains { $0.1 == .consent(.describe(caller: ":1.1")) }
                && A.answers(picked).isEmpty && picked.reply != .none, "\(picked.reply)")
        if case .token = picked.reply { Issue.record("a confirm=true account answered by issuer without the person") }
        r.apply(core: call.core)
        // Another program (another connection) has a prompt of its own.
        let other = r.accountCall(
            .getToken("work", TokenRequest()), accounts: [work, plain], caller: ":1.2", now: A.now)
        #expect(A.started(other).contains { $0.1 == .consent(.describe(caller: ":1.2")) })
        let described = r.completed(promptOp, .consent(.described("git")), now: A.now)
        guard let q = Self.question(described) else { throw Failure("not shown") }
        #expect(q.summary == "Allow git to use your account work?" && q.body.contains("“git” (as it names itself)"))
        #expect(q.answers.map(\.label) == ["Allow once", "Deny"])
        #expect(
            ConsentPrompt.hostQuestion("<b>Updates</b>", work, TokenTarget()).summary
                == "Allow a program to use your account work?")
        r.apply(core: described.core)
        Self.show(&r, promptOp, as: 2)
        // "Always allow" is not offered, and not taken if sent (with the prompt's own nonce): a refusal.
        let always = Self.pick(.allowAlways, r, 2)
        guard case .refused(let e)? = A.answers(always)[held] else { throw Failure("allowed always") }
        #expect(e.code == .accessDenied)
    }

    @Test(
        "an app's account never passes for the person's: AddAccount of one of the person's names, or of their provider and client, is refused alike (nothing written); such an account declared before signs in only with the person's yes; a signed-out app account gets no sign-in notice (the person's does), and an unlock notice names the app"
    )
    func lookAlikes() throws {
        var (r, work) = try Self.world()
        work.grants = []
        var same = AccountRequest()
        same.issuer = A.issuer
        same.clientID = "cli"
        var messages: [String] = []
        for (name, request) in [("work", Self.accountRequest("other-client")), ("mine", same)] {
            let t = r.accountCall(.add(name, request), accounts: [work], caller: ":1.9", now: A.now)
            guard case .refused(let e) = t.reply else { throw Failure("\(name) declared: \(t.reply)") }
            #expect(e.code == .accessDenied && A.started(t).isEmpty)
            messages.append(e.message.replacing(name, with: "NAME"))
        }
        #expect(messages[0] == messages[1], "the same words whichever part matched")
        // An app account of its own client is declared.
        let fine = r.accountCall(
            .add("mine", Self.accountRequest("app-client")), accounts: [work], caller: ":1.9", now: A.now)
        #expect(A.started(fine).contains { if case .accountFile = $0.1 { true } else { false } }, "\(fine.reply)")

        // Declared before the person's (on disk): its sign-in is refused.
        let lookAlike = try Account.make(name: "mine", same, owner: .app(Self.app.label))
        var signIn = SessionRequest()
        signIn.account = "mine"
        let begin = Begin(request: signIn, flow: .code, inputs: Fixtures.inputs(), caller: ":1.9")
        let refused = r.accountCall(.begin(begin), accounts: [work, lookAlike], caller: ":1.9", now: A.now)
        guard case .refused(let e) = refused.reply else { throw Failure("signed in: \(refused.reply)") }
        #expect(e.code == .accessDenied && e.message.contains("pass for one of the person's accounts"))

        // Signed out: the app's account gets no notice; the person's does.
        let appsOwn = try Account.make(name: "mine", Self.accountRequest("app-client"), owner: .app(Self.app.label))
        r.apply(core: [.account(appsOwn.key, AccountKeeper(tokens: nil, loaded: true))])
        let appCall = r.accountCall(
            .getToken("mine", TokenRequest()), accounts: [work, appsOwn], caller: ":1.9", now: A.now)
        guard case .refused(let notSignedIn) = appCall.reply else { throw Failure("\(appCall.reply)") }
        #expect(notSignedIn.code == .notSignedIn)
        #expect(!A.started(appCall).contains { if case .accountNotice = $0.1 { true } else { false } })
        var person = r
        person.apply(core: [.account(work.key, AccountKeeper(tokens: nil, loaded: true))])
        let personCall = person.accountCall(
            .getToken("work", TokenRequest()), accounts: [work], caller: ":1.1", now: A.now)
        #expect(A.started(personCall).contains { if case .accountNotice(.show) = $0.1 { true } else { false } })
        let unlock = AccountNotice.text(appsOwn.key, .unlockKeyring, why: "locked")
        #expect(
            unlock.summary == "Unlock the keyring for an app's account"
                && unlock.body.contains("flatpak:org.example.IDE's own account mine"))
    }

    static func accountRequest(_ client: String) -> AccountRequest {
        var r = AccountRequest()
        r.issuer = A.issuer
        r.clientID = client
        return r
    }
}

extension ConsentPromptTests {
    @Test(
        "the prompt shows a sandboxed app as the person knows it, by the Name and Icon of the desktop entry its sandbox exported, beside its verified id; a Name with anything but plain words (markup, a newline, over 64 characters) is not shown, the id alone is; an Icon that is a path is not used"
    )
    func namedAsThePersonKnowsIt() throws {
        func asked(_ face: AppFace?) throws -> ConsentPrompt.Question {
            var router = Router()
            let account = try A.account()
            let t1 = router.accountCall(
                .getToken(account.name, TokenRequest()), accounts: [account], caller: ":1.7", now: A.now)
            guard let (identify, _) = A.started(t1).first else { throw Failure("not identified") }
            router.apply(core: t1.core)
            let t2 = router.completed(
                identify, .identification(.identified(.flatpak("com.visualstudio.code"), face: face)), now: A.now)
            guard let q = Self.question(t2) else { throw Failure("not asked: \(t2.effects)") }
            return q
        }
        let vscode = try asked(AppFace(name: "Visual Studio Code", icon: "com.visualstudio.code"))
        #expect(vscode.summary == "Allow Visual Studio Code (com.visualstudio.code, Flatpak) to use your account work?")
        #expect(vscode.icon == "com.visualstudio.code")
        let plain = "Allow com.visualstudio.code to use your account work?"
        for odd in ["<b>Firefox</b>", "Line\nbreak", String(repeating: "a", count: 65), "   "] {
            #expect(try asked(AppFace(name: odd, icon: nil)).summary == plain, "\(odd)")
        }
        for path in ["/home/me/.local/share/evil.png", "../x", "a b", ".hidden"] {
            #expect(try asked(AppFace(name: nil, icon: path)).icon == nil, "\(path)")
        }
        let none = try asked(nil)
        #expect(none.summary == plain && none.icon == nil)
    }
}
