import LinkRouterCore
import Testing

/// The routing order for one link (issue 14, docs/deep-links.md), with no bus.
@Suite("Deep links: which app, and when not")
struct DeepLinkRoutingTests {
    let now = Fixtures.now
    static let app = LinkApp(id: "com.example.App.desktop", delivery: .dbus)
    static let web = LinkApp(id: "org.example.Web.desktop", delivery: .exec)

    static func apps(claims: [String] = ["https://example.com/app/"], left: Set<String> = []) throws -> AppDirectory {
        AppDirectory(schemes: ["com.example.app": app], claims: try claims.map { try HTTPSClaim.parse($0, app: web) }, leftToBrowser: left)
    }

    @Test("claims: https, a named host, a path ending at a segment boundary; nothing else", arguments: [
        ("https://example.com/app/", true), ("https://example.com/", true), ("https://example.com:8443/a/", true),
        ("https://example.com/app", false), ("http://example.com/app/", false), ("https:///app/", false), ("https://*.example.com/", false),
        ("https://u@example.com/app/", false), ("https://example.com/app/?x=1", false), ("https://example.com/app/#f", false),
        ("https://example.com/a/../b/", false), ("https://example.com/a%2Fb/", false), ("com.example.app:/x/", false),
    ])
    func claimSyntax(_ text: String, _ ok: Bool) {
        #expect(((try? HTTPSClaim.parse(text, app: Self.web)) != nil) == ok, "\(text)")
    }

    @Test("a claim covers its host's paths under its prefix, byte for byte; dot segments and encoded slashes never", arguments: [
        ("https://example.com/app/x", true), ("https://EXAMPLE.com/app/x?q=1#f", true), ("https://example.com:443/app/x", true),
        ("https://example.com/app/", true), ("https://example.com/app", false), ("https://example.com/apps/x", false),
        ("https://example.com/app/../admin", false), ("https://example.com/app/%2e%2e/admin", false), ("https://example.com/app/a%2Fb", false),
        ("https://example.com:8443/app/x", false), ("https://other.example/app/x", false), ("http://example.com/app/x", false),
    ])
    func covers(_ link: String, _ covered: Bool) throws {
        let claim = try HTTPSClaim.parse("https://example.com/app/", app: Self.web)
        #expect(claim.covers(try URIReference.strict(link, maxLength: 8192)) == covered, "\(link)")
    }

    @Test("order: a session's state first; then the scheme's app or the longest claim; then the browser, or NoApp")
    func order() throws {
        let (router, s) = try Fixtures.router()
        let apps = try Self.apps(claims: ["https://example.com/", "https://example.com/app/"])
        #expect(router.decide("com.example.app:/callback?code=C&state=\(s.state)", source: .link, apps: apps, now: now).session?.status == .completed)
        guard case .deliver(let url, let app, _) = router.decide("com.example.app:/items/42", source: .link, apps: apps, now: now) else {
            Issue.record("not delivered"); return
        }
        #expect(url == "com.example.app:/items/42" && app == Self.app)
        guard case .deliver(_, let byClaim, let rule) = router.decide("https://example.com/app/x", source: .link, apps: apps, now: now) else {
            Issue.record("not delivered"); return
        }
        #expect(byClaim == Self.web && rule.contains("https://example.com/app/"))
        #expect(router.decide("https://other.example/", source: .link, apps: apps, now: now) == .passthrough("https://other.example/"))
        #expect(router.decide("org.other.app:/x", source: .link, apps: apps, now: now).refusalCode == .noApp)
        // A link's own `code` off any callback may be the app's (a gift code).
        guard case .deliver = router.decide("com.example.app:/redeem?code=GIFT", source: .link, apps: apps, now: now) else {
            Issue.record("an app's own code parameter was refused"); return
        }
    }

    @Test("a login link is never a deep link: unknown state with a response, or anything on a callback URI")
    func loginLinks() throws {
        let (router, _) = try Fixtures.router()
        let apps = try Self.apps()
        for link in ["com.example.app:/callback?code=C&state=unknown", "com.example.app:/callback", "com.example.app:/callback?x=1",
                     "com.example.app:/anywhere?state=s&error=access_denied", "com.example.app:/anywhere?state=s&resume_uri=https%3A%2F%2Fa"] {
            let d = router.decide(link, source: .link, apps: apps, now: now)
            #expect(d.refusalCode == .unknownState || d.refusalCode == .invalidArgument, "\(link): \(d)")
        }
        // A web login link with an unknown state goes to the browser, never to the app that claims its path.
        #expect(router.decide("https://example.com/app/cb?state=s&code=c", source: .link, apps: apps, now: now) == .passthrough("https://example.com/app/cb?state=s&code=c"))
    }

    @Test("hosts left to the browser override claims; the listener never delivers")
    func leftAndLoopback() throws {
        var (router, _) = try Fixtures.router()
        let loop = try Fixtures.session(Fixtures.request(redirect: "http://127.0.0.1/cb"), n: 2)
        router.insert(loop)
        let apps = try Self.apps(left: ["example.com"])
        #expect(router.decide("https://example.com/app/x", source: .link, apps: apps, now: now) == .passthrough("https://example.com/app/x"))
        #expect(router.decide("com.example.app:/items/1", source: .loopback(loop.id), apps: apps, now: now).refusalCode != nil)
    }

    @Test("the transition: a deliver effect with the click's context, the outcome by how the app is reached")
    func transition() throws {
        let (router, _) = try Fixtures.router()
        let apps = try Self.apps()
        let context = ActivationContext(activationToken: "t", desktopStartupID: nil)
        let t = router.route("com.example.app:/items/1", source: .link, via: "test", apps: apps, context: context, now: now)
        #expect(t.changes.isEmpty && t.reply == .routed(.delivered))
        #expect(t.effects.first == .deliver("com.example.app:/items/1", to: Self.app, context: context))
        let exec = router.route("https://example.com/app/y", source: .link, via: "test", apps: apps, now: now)
        #expect(exec.reply == .routed(.launched))
        #expect(Self.app.objectPath == "/com/example/App" && LinkApp(id: "org.gnome-x.Foo.desktop", delivery: .dbus).objectPath == "/org/gnome_x/Foo")
    }

    @Test("two apps on one prefix: the first found wins, and it is a conflict to show")
    func conflicts() throws {
        let a = LinkApp(id: "a.desktop", delivery: .exec), b = LinkApp(id: "b.desktop", delivery: .exec)
        let dir = AppDirectory(claims: [try HTTPSClaim.parse("https://x.example/p/", app: a), try HTTPSClaim.parse("https://x.example/p/", app: b),
                                        try HTTPSClaim.parse("https://x.example/p/q/", app: b)])
        #expect(dir.app(for: try URIReference.strict("https://x.example/p/z", maxLength: 100))?.app == a)
        #expect(dir.app(for: try URIReference.strict("https://x.example/p/q/z", maxLength: 100))?.app == b)
        #expect(dir.conflicts.map(\.apps) == [["a.desktop", "b.desktop"]])
    }
}
