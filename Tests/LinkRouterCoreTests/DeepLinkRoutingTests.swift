import Testing

@testable import LinkRouterCore

/// The routing order for one link (issue 14, docs/deep-links.md), with no bus.
@Suite("Deep links: which app, and when not")
struct DeepLinkRoutingTests {
    /// How the decided app takes the link, when the decision is a delivery.
    static func delivery(_ d: RouteDecision) -> LinkApp.Delivery? {
        if case .deliver(_, let app, _) = d { app.delivery } else { nil }
    }

    let now = Fixtures.now
    static let app = LinkApp(id: "com.example.App.desktop", delivery: .dbus)
    static let web = LinkApp(id: "org.example.Web.desktop", delivery: .exec)

    static func apps(claims: [String] = ["https://example.com/app/"], left: Set<String> = []) throws -> AppDirectory {
        AppDirectory(
            schemes: ["com.example.app": app], claims: try claims.map { try HTTPSClaim.parse($0, app: web) },
            leftToBrowser: left)
    }

    @Test(
        "claims: https, a named host, a path ending at a segment boundary; nothing else",
        arguments: [
            ("https://example.com/app/", true), ("https://example.com/", true), ("https://example.com:8443/a/", true),
            ("https://example.com/app", false), ("http://example.com/app/", false), ("https:///app/", false),
            ("https://*.example.com/", false),
            ("https://u@example.com/app/", false), ("https://example.com/app/?x=1", false),
            ("https://example.com/app/#f", false),
            ("https://example.com/a/../b/", false), ("https://example.com/a%2Fb/", false),
            ("com.example.app:/x/", false),
        ])
    func claimSyntax(_ text: String, _ ok: Bool) {
        #expect(((try? HTTPSClaim.parse(text, app: Self.web)) != nil) == ok, "\(text)")
    }

    @Test(
        "a claim covers its host's paths under its prefix, byte for byte; dot segments and encoded slashes never",
        arguments: [
            ("https://example.com/app/x", true), ("https://EXAMPLE.com/app/x?q=1#f", true),
            ("https://example.com:443/app/x", true),
            ("https://example.com/app/", true), ("https://example.com/app", false),
            ("https://example.com/apps/x", false),
            ("https://example.com/app/../admin", false), ("https://example.com/app/%2e%2e/admin", false),
            ("https://example.com/app/a%2Fb", false),
            ("https://example.com:8443/app/x", false), ("https://other.example/app/x", false),
            ("http://example.com/app/x", false),
        ])
    func covers(_ link: String, _ covered: Bool) throws {
        let claim = try HTTPSClaim.parse("https://example.com/app/", app: Self.web)
        #expect(claim.covers(try URIReference.strict(link, maxLength: 8192)) == covered, "\(link)")
    }

    @Test("order: a session's state first; then the scheme's app or the longest claim; then the browser, or NoApp")
    func order() throws {
        let (router, s) = try Fixtures.router()
        let apps = try Self.apps(claims: ["https://example.com/", "https://example.com/app/"])
        #expect(
            router.decide(
                "com.example.app:/callback?code=C&state=\(s.codeLogin.state)", source: .link, apps: apps, now: now
            )
            .session?.status == .completed)
        guard
            case .deliver(let url, let app, _) = router.decide(
                "com.example.app:/items/42", source: .link, apps: apps, now: now)
        else {
            Issue.record("not delivered")
            return
        }
        #expect(url == "com.example.app:/items/42" && app == Self.app)
        guard
            case .deliver(_, let byClaim, let rule) = router.decide(
                "https://example.com/app/x", source: .link, apps: apps, now: now)
        else {
            Issue.record("not delivered")
            return
        }
        #expect(byClaim == Self.web && rule.contains("https://example.com/app/"))
        #expect(
            router.decide("https://other.example/", source: .link, apps: apps, now: now)
                == .passthrough("https://other.example/"))
        #expect(router.decide("org.other.app:/x", source: .link, apps: apps, now: now).refusalCode == .noApp)
        // A link's own `code` off any callback may be the app's (a gift code).
        guard case .deliver = router.decide("com.example.app:/redeem?code=GIFT", source: .link, apps: apps, now: now)
        else {
            Issue.record("an app's own code parameter was refused")
            return
        }
    }

    @Test("a login link is never a deep link: unknown state with a response, or anything on a callback URI")
    func loginLinks() throws {
        let (router, _) = try Fixtures.router()
        let apps = try Self.apps()
        for link in [
            "com.example.app:/callback?code=C&state=unknown", "com.example.app:/callback",
            "com.example.app:/callback?x=1",
            "com.example.app:/anywhere?state=s&error=access_denied",
            "com.example.app:/anywhere?state=s&resume_uri=https%3A%2F%2Fa",
        ] {
            let d = router.decide(link, source: .link, apps: apps, now: now)
            #expect(d.refusalCode == .unknownState || d.refusalCode == .invalidArgument, "\(link): \(d)")
        }
        // A web login link with an unknown state goes to the browser, never to the app that claims its path.
        #expect(
            router.decide("https://example.com/app/cb?state=s&code=c", source: .link, apps: apps, now: now)
                == .passthrough("https://example.com/app/cb?state=s&code=c"))
    }

    @Test("hosts left to the browser override claims; the listener never delivers")
    func leftAndLoopback() throws {
        var (router, _) = try Fixtures.router()
        let loop = try Fixtures.session(Fixtures.request(redirect: "http://127.0.0.1/cb"), n: 2)
        router.insert(loop)
        let apps = try Self.apps(left: ["example.com"])
        #expect(
            router.decide("https://example.com/app/x", source: .link, apps: apps, now: now)
                == .passthrough("https://example.com/app/x"))
        #expect(
            router.decide("com.example.app:/items/1", source: .loopback(loop.id), apps: apps, now: now).refusalCode
                != nil)
    }

    @Test("the transition: a deliver effect with the click's context, the outcome by how the app is reached")
    func transition() throws {
        var (router, _) = try Fixtures.router()
        let apps = try Self.apps()
        let context = ActivationContext(activationToken: "t", desktopStartupID: nil)
        let t = router.route(
            "com.example.app:/items/1", source: .link, via: "test", apps: apps, context: context, now: now)
        // The call is held while the app is reached; its answer is the outcome.
        let op = try #require(t.held)
        #expect(
            t.changes.isEmpty
                && t.core == [
                    .track(op, .delivery(Delivery(url: "com.example.app:/items/1", app: Self.app, caller: "")))
                ])
        #expect(
            t.effects.first
                == .start(op, .delivery(.deliver(url: "com.example.app:/items/1", app: Self.app, context: context))))
        #expect(Self.delivery(router.decide("com.example.app:/items/1", source: .link, apps: apps, now: now)) == .dbus)
        router.take(t)
        let delivered = router.completed(op, .delivery(.delivered(.success(.delivered))), now: now)
        #expect(
            delivered.answers == [.answer(op, .routed(.delivered))] && delivered.core == [.finish(op)]
                && delivered.changes.isEmpty)

        let exec = router.route("https://example.com/app/y", source: .link, via: "test", apps: apps, now: now)
        let execOp = try #require(exec.held)
        #expect(
            exec.operation(execOp)
                == .delivery(.deliver(url: "https://example.com/app/y", app: Self.web, context: .none)))
        #expect(Self.delivery(router.decide("https://example.com/app/y", source: .link, apps: apps, now: now)) == .exec)
        router.take(exec)
        #expect(
            router.completed(execOp, .delivery(.delivered(.success(.launched))), now: now).answers == [
                .answer(execOp, .routed(.launched))
            ])
        #expect(
            Self.app.objectPath == "/com/example/App"
                && LinkApp(id: "org.gnome-x.Foo.desktop", delivery: .dbus).objectPath == "/org/gnome_x/Foo")

        // A link nobody waits for (a queued one): nobody is answered, the app still gets it.
        let queued = router.route(
            "com.example.app:/items/2", source: .link, via: "inbox", apps: apps, answers: false, now: now)
        let queuedOp = try #require(queued.started.first)
        #expect(
            queued.reply == .none
                && queued.core == [
                    .track(queuedOp, .delivery(Delivery(url: "com.example.app:/items/2", app: Self.app, caller: nil)))
                ])
        router.take(queued)
        #expect(router.completed(queuedOp, .delivery(.delivered(.success(.delivered))), now: now).answers.isEmpty)
    }

    @Test(
        "an app that cannot take its link: a web link goes to the browser instead; any other is refused, and the person who clicked is told"
    )
    func appFailed() throws {
        var (router, _) = try Fixtures.router()
        let apps = try Self.apps()
        let web = router.route("https://example.com/app/z", source: .link, via: "test", apps: apps, now: now)
        let webOp = try #require(web.held)
        router.take(web)
        let failure = RouterError(.appFailed, "org.example.Web.desktop could not be started")
        let fallback = router.completed(webOp, .delivery(.delivered(.failure(failure))), now: now)
        #expect(
            Array(fallback.effects.prefix(2)) == [
                .openBrowser("https://example.com/app/z", in: .web), .answer(webOp, .routed(.passthrough)),
            ])
        #expect(fallback.core == [.finish(webOp)] && fallback.changes.isEmpty)
        #expect(fallback.effects.contains { if case .log(let l) = $0 { l.priority == .warning } else { false } })
        #expect(!fallback.effects.contains { if case .notify = $0 { true } else { false } })

        let custom = router.route("com.example.app:/items/3", source: .link, via: "test", apps: apps, now: now)
        let customOp = try #require(custom.held)
        router.take(custom)
        let lost = RouterError(.appFailed, "com.example.App.desktop did not answer Open")
        let refused = router.completed(customOp, .delivery(.delivered(.failure(lost))), now: now)
        #expect(refused.answers == [.answer(customOp, .refused(lost))] && refused.core == [.finish(customOp)])
        #expect(!refused.effects.contains { if case .openBrowser = $0 { true } else { false } })
        #expect(refused.effects.contains(.notify(summary: "A link could not be opened", body: lost.message)))

        // Queued, nobody waits: the browser still takes the web link, and nobody is answered.
        let queued = router.route(
            "https://example.com/app/q", source: .link, via: "inbox", apps: apps, answers: false, now: now)
        let queuedOp = try #require(queued.started.first)
        router.take(queued)
        let quiet = router.completed(queuedOp, .delivery(.delivered(.failure(failure))), now: now)
        #expect(quiet.effects.first == .openBrowser("https://example.com/app/q", in: .web) && quiet.answers.isEmpty)
        // Another failure than the app's (the link itself refused) is only answered and logged.
        let other = RouterError(.invalidArgument, "bad link")
        let queued2 = router.route("com.example.app:/items/4", source: .link, via: "test", apps: apps, now: now)
        let op2 = try #require(queued2.held)
        router.take(queued2)
        let plain = router.completed(op2, .delivery(.delivered(.failure(other))), now: now)
        #expect(
            plain.answers == [.answer(op2, .refused(other))]
                && !plain.effects.contains { if case .notify = $0 { true } else { false } })
    }

    @Test("two apps on one prefix: the first found wins, and it is a conflict to show")
    func conflicts() throws {
        let a = LinkApp(id: "a.desktop", delivery: .exec)
        let b = LinkApp(id: "b.desktop", delivery: .exec)
        let dir = AppDirectory(claims: [
            try HTTPSClaim.parse("https://x.example/p/", app: a), try HTTPSClaim.parse("https://x.example/p/", app: b),
            try HTTPSClaim.parse("https://x.example/p/q/", app: b),
        ])
        #expect(dir.app(for: try URIReference.strict("https://x.example/p/z", maxLength: 100))?.app == a)
        #expect(dir.app(for: try URIReference.strict("https://x.example/p/q/z", maxLength: 100))?.app == b)
        #expect(dir.conflicts.map(\.apps) == [["a.desktop", "b.desktop"]])
    }

    @Test(
        "the clicker leaves while its app has the link: its held call is dropped at once, the delivery goes on for nobody, and the app's answer goes to no one"
    )
    func clickerLeaves() throws {
        var (router, _) = try Fixtures.router()
        let clicker = ":1.42"
        let routed = router.route(
            "com.example.app:/items/42", source: .link, via: "test", caller: clicker, apps: try Self.apps(), now: now)
        let op = try #require(routed.held, "not held: \(routed.reply)")
        router.take(routed)
        #expect(router.running[op]?.caller == clicker)
        // The clicker's connection goes: the bus drops its call now, not when the app answers.
        let gone = router.ownerGone(clicker, now: now)
        #expect(gone.effects.contains(.forget(op)), "\(gone.effects)")
        #expect(!gone.core.contains(.finish(op)), "the app still gets the link")
        router.take(gone)
        #expect(router.running[op] != nil && router.running[op]?.caller == nil)
        // The app's answer finishes the delivery and answers nobody.
        let answered = router.completed(op, .delivery(.delivered(.success(.delivered))), now: now)
        #expect(answered.core == [.finish(op)])
        #expect(!answered.effects.contains { if case .answer = $0 { true } else { false } }, "\(answered.effects)")
        router.take(answered)
        #expect(router.running.isEmpty)
    }
}
