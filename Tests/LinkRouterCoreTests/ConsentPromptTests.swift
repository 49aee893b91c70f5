import Testing

@testable import LinkRouterCore

/// The person's yes before their account goes to a sandboxed app (`ConsentPrompt`), as the core decides it.
@Suite("Consent prompts")
struct ConsentPromptTests {
    typealias A = AccountTokenTests
    typealias Failure = AccountTokenTests.Failure
    static let app = CallerApp.flatpak("org.example.IDE")

    /// A router whose `:1.9` is the app, with the person's `work` signed in.
    static func world() throws -> (Router, Account) {
        var r = Router()
        let account = try A.account()
        r.apply(core: [
            .caller(":1.9", app), .caller(":1.8", .flatpak("org.example.Other")), .caller(":1.1", .host),
            .account(account.key, AccountTokens(tokens: A.tokens("at", expiresIn: 3600), loaded: true)),
        ])
        return (r, account)
    }

    static func prompt(_ t: Transition) -> OperationID? {
        A.started(t).first { if case .consent(.show) = $0.1 { true } else { false } }?.0
    }

    @Test(
        "a sandboxed app's GetToken for the person's account is held on one prompt per app and account, naming the verified app, the account and its issuer, with a 60 s deadline; a second call joins it, another app gets its own; a host program and the app's own account are never asked"
    )
    func oneAtATime() throws {
        var (r, work) = try Self.world()
        work.grants = []
        let first = r.accountCall(.getToken("work", TokenRequest()), accounts: [work], caller: ":1.9", now: A.now)
        guard case .held(let held) = first.reply, let promptOp = Self.prompt(first) else {
            throw Failure("not asked: \(first.reply)")
        }
        guard case .consent(.show(let text, let more))? = A.started(first).first(where: { $0.0 == promptOp })?.1 else {
            throw Failure("no prompt")
        }
        #expect(text.summary == "Allow org.example.IDE to use your account work?")
        #expect(text.body.contains("org.example.IDE") && text.body.contains(A.issuer) && text.body.contains("Flatpak"))
        #expect(more.map(\.label) + [text.action.label] == ["Allow once", "Always allow", "Deny"])
        #expect(A.started(first).contains { $0 == (promptOp, .consent(.deadline(milliseconds: 60_000))) })
        #expect(A.answers(first).isEmpty, "no token before the person's yes")
        r.apply(core: first.core)
        let second = r.accountCall(.getToken("work", TokenRequest()), accounts: [work], caller: ":1.9", now: A.now)
        guard case .held(let held2) = second.reply else { throw Failure("not held") }
        #expect(Self.prompt(second) == nil, "the same prompt")
        r.apply(core: second.core)
        let other = r.accountCall(.getToken("work", TokenRequest()), accounts: [work], caller: ":1.8", now: A.now)
        #expect(Self.prompt(other) != nil, "another app is asked about on its own")
        let host = r.accountCall(.getToken("work", TokenRequest()), accounts: [work], caller: ":1.1", now: A.now)
        guard case .token(let hostAnswer) = host.reply, Self.prompt(host) == nil else {
            throw Failure("a host program was asked: \(host.reply)")
        }
        #expect(hostAnswer.tokens.accessToken == "at")

        // Allow once: both held calls answered with the token; the prompt withdrawn and its timer stopped.
        r.apply(core: r.completed(promptOp, .consent(.shown(.success(7))), now: A.now).core)
        #expect(r.isConsentPrompt(7))
        let allowed = r.consentAnswered(7, action: "allow-once", now: A.now)
        let answers = A.answers(allowed)
        for op in [held, held2] {
            guard case .token(let t)? = answers[op] else { throw Failure("\(op) not answered: \(answers)") }
            #expect(t.tokens.accessToken == "at")
        }
        #expect(allowed.effects.contains(.closeNotification(7)) && allowed.effects.contains(.cancel(promptOp)))
        #expect(!A.started(allowed).contains { if case .consent(.remember) = $0.1 { true } else { false } })
        r.apply(core: allowed.core)
        #expect(!r.isConsentPrompt(7))
        // Once: the next call asks again.
        let again = r.accountCall(.getToken("work", TokenRequest()), accounts: [work], caller: ":1.9", now: A.now)
        #expect(Self.prompt(again) != nil)
    }

    @Test(
        "Deny, a close, no answer by the deadline, or no notification server: every waiting call is AccessDenied saying why, and no token is in any answer; after a Deny the app is not asked again for a minute"
    )
    func refusals() throws {
        for (event, says) in [
            (ConsentPrompt.Event.invoked(action: "deny"), "denied"),
            (.closed(reason: 2), "closed the prompt"),
            (.expired, "did not answer within 60 s"),
            (.shown(.failure(RouterError(.internalError, "no server"))), "no one could be asked"),
        ] {
            var (r, work) = try Self.world()
            work.grants = []
            let call = r.accountCall(.getToken("work", TokenRequest()), accounts: [work], caller: ":1.9", now: A.now)
            guard case .held(let held) = call.reply, let promptOp = Self.prompt(call) else {
                throw Failure("not asked")
            }
            r.apply(core: call.core)
            let t = r.completed(promptOp, .consent(event), now: A.now)
            guard case .refused(let e)? = A.answers(t)[held] else { throw Failure("\(event): not refused") }
            #expect(e.code == .accessDenied && e.message.contains(says), "\(e.message)")
            #expect(A.requests(t).isEmpty, "nothing asked of a provider or the keyring")
            r.apply(core: t.core)
            #expect(r.running.isEmpty)
            // After a Deny, the app is refused without a prompt for a minute; then asked again. Any other end asks
            // again at once.
            let next = r.accountCall(
                .getToken("work", TokenRequest()), accounts: [work], caller: ":1.9", now: A.now + 1)
            if case .invoked = event {
                guard case .refused(let again) = next.reply else { throw Failure("asked again at once after Deny") }
                #expect(again.code == .accessDenied && again.message.contains("denied") && Self.prompt(next) == nil)
                let later = r.accountCall(
                    .getToken("work", TokenRequest()), accounts: [work], caller: ":1.9",
                    now: A.now + ConsentPrompt.coolOffSeconds)
                #expect(Self.prompt(later) != nil)
            } else {
                #expect(Self.prompt(next) != nil)
            }
        }
    }

    @Test(
        "Always allow: the grant (app, scope asked, time) is written, then the calls go on; a grant covers its scope and narrower, not wider; a grant's write that fails still allows this once"
    )
    func always() throws {
        var (r, work) = try Self.world()
        var narrow = TokenRequest()
        narrow.scope = "openid"
        let call = r.accountCall(.getToken("work", narrow), accounts: [work], caller: ":1.9", now: A.now)
        guard case .held(let held) = call.reply, let promptOp = Self.prompt(call) else { throw Failure("not asked") }
        r.apply(core: call.core)
        let said = r.completed(promptOp, .consent(.invoked(action: "allow-always")), now: A.now)
        let grant = AccountGrant(app: Self.app, scope: "openid", grantedAt: A.now)
        #expect(A.started(said).contains { $0 == (promptOp, .consent(.remember(work, grant))) })
        #expect(A.answers(said).isEmpty, "answered once the grant is kept")
        r.apply(core: said.core)
        // A late deadline while the grant is written changes nothing.
        #expect(A.answers(r.completed(promptOp, .consent(.expired), now: A.now)).isEmpty)
        let kept = r.completed(promptOp, .consent(.remembered(nil)), now: A.now)
        // The narrower token is the account's to get: the call goes on to its flight (a refresh asking for the scope).
        #expect(
            A.answers(kept)[held] == nil && A.requests(kept).contains { if case .flight = $0.1 { true } else { false } }
        )
        r.apply(core: kept.core)

        // With the grant on the declaration (the daemon attaches it), the next call is not asked.
        work.grants = [grant]
        let next = r.accountCall(.getToken("work", narrow), accounts: [work], caller: ":1.9", now: A.now)
        #expect(Self.prompt(next) == nil)
        func target(_ scope: String?, resources: [String] = []) -> ConsentTarget {
            var t = ConsentTarget()
            t.scope = scope
            t.resources = resources
            return t
        }
        #expect(grant.covers(Self.app, target("openid")) && !grant.covers(Self.app, target("openid email")))
        #expect(!grant.covers(Self.app, target(nil)) && !grant.covers(.flatpak("org.example.Other"), target("openid")))
        #expect(
            !grant.covers(Self.app, target("openid", resources: ["https://api.example/"])),
            "a resource was not asked about")
        let whole = AccountGrant(app: Self.app, scope: nil, grantedAt: 0)
        #expect(
            whole.covers(Self.app, target("openid email"))
                && whole.covers(Self.app, target(nil, resources: ["https://api.example/"])))
        // A scope the account cannot give is refused before anyone is asked (nothing shown, nothing kept).
        var wider = TokenRequest()
        wider.scope = "openid email"
        let refused = r.accountCall(.getToken("work", wider), accounts: [work], caller: ":1.9", now: A.now)
        guard case .refused(let e) = refused.reply else { throw Failure("asked about a scope beyond the account's") }
        #expect(e.code == .invalidArgument && Self.prompt(refused) == nil)
        var odd = TokenRequest()
        odd.scope = "openid\nbank"
        #expect(Self.prompt(r.accountCall(.getToken("work", odd), accounts: [work], caller: ":1.9", now: A.now)) == nil)
        // A resource besides the granted scope is asked about; a call for another target does not join its prompt.
        var resource = narrow
        resource.resources = ["https://api.example/"]
        let asked = r.accountCall(.getToken("work", resource), accounts: [work], caller: ":1.9", now: A.now)
        #expect(Self.prompt(asked) != nil)
        r.apply(core: asked.core)
        var other = narrow
        other.resources = ["https://other.example/"]
        #expect(
            Self.prompt(r.accountCall(.getToken("work", other), accounts: [work], caller: ":1.9", now: A.now)) != nil)

        // The write failed: allowed this once, said in the log.
        var (r2, work2) = try Self.world()
        work2.grants = []
        let call2 = r2.accountCall(.getToken("work", TokenRequest()), accounts: [work2], caller: ":1.9", now: A.now)
        guard case .held(let held2) = call2.reply, let promptOp2 = Self.prompt(call2) else {
            throw Failure("not asked")
        }
        r2.apply(core: call2.core)
        r2.apply(core: r2.completed(promptOp2, .consent(.invoked(action: "allow-always")), now: A.now).core)
        let failed = r2.completed(
            promptOp2, .consent(.remembered(RouterError(.storageFailed, "disk full"))), now: A.now)
        guard case .token? = A.answers(failed)[held2] else { throw Failure("not allowed once") }
        #expect(
            failed.effects.contains {
                if case .log(let l) = $0 { l.text.contains("could not be remembered") } else { false }
            })
    }

    @Test(
        "the app leaves while the person is asked: its calls go with it, the prompt is withdrawn, and an answer reaches no one"
    )
    func appLeaves() throws {
        var (r, work) = try Self.world()
        work.grants = []
        let call = r.accountCall(.getToken("work", TokenRequest()), accounts: [work], caller: ":1.9", now: A.now)
        guard case .held(let held) = call.reply, let promptOp = Self.prompt(call) else { throw Failure("not asked") }
        r.apply(core: call.core)
        // (Stopping instead: the prompt's calls are answered and its notification withdrawn.)
        var stopping = r
        stopping.apply(core: stopping.completed(promptOp, .consent(.shown(.success(5))), now: A.now).core)
        let stopped = stopping.stopping()
        #expect(A.answers(stopped)[held] != nil && stopped.effects.contains(.closeNotification(5)))
        let gone = r.ownerGone(":1.9", now: A.now)
        #expect(gone.effects.contains(.forget(held)))
        r.apply(core: gone.core)
        // Nobody is left to ask for: the prompt is withdrawn and its timer stopped; a late answer reaches nothing.
        #expect(gone.core.contains(.finish(promptOp)) && gone.effects.contains(.cancel(promptOp)))
        let allowed = r.completed(promptOp, .consent(.invoked(action: "allow-once")), now: A.now)
        #expect(A.answers(allowed).isEmpty && A.requests(allowed).isEmpty)
        // The server's answer to the show, arriving after: its notification goes too.
        #expect(r.completed(promptOp, .consent(.shown(.success(9))), now: A.now).effects == [.closeNotification(9)])
    }

    @Test(
        "an account declared confirm=true: a host program's GetToken is asked each time, its prompt per connection, naming the program the daemon describes, with Allow once and Deny only; an account without it is answered at once"
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
            .account(work.key, AccountTokens(tokens: A.tokens("at", expiresIn: 3600), loaded: true)),
            .account(plain.key, AccountTokens(tokens: A.tokens("pt", expiresIn: 3600), loaded: true)),
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
        guard case .consent(.show(let text, let more))? = A.started(described).first?.1 else {
            throw Failure("not shown")
        }
        #expect(text.summary == "Allow git to use your account work?" && text.body.contains("as it names itself"))
        #expect(more.map(\.label) + [text.action.label] == ["Allow once", "Deny"])
        r.apply(core: described.core)
        // "Always allow" is not offered, and not taken if sent: a refusal.
        let always = r.completed(promptOp, .consent(.invoked(action: "allow-always")), now: A.now)
        guard case .refused(let e)? = A.answers(always)[held] else { throw Failure("allowed always") }
        #expect(e.code == .accessDenied)
    }
}
