import LinkRouterCore
import Testing

@Suite("Router: one link, one decision")
struct RouterTests {
    let now = Fixtures.now

    @Test("a redirect with code and the session's state completes it, with the verifier and nonce")
    func completes() throws {
        let (router, s) = try Fixtures.router()
        let uri = "com.example.app:/callback?code=C0DE&state=\(s.codeLogin.state)"
        guard case .complete(let done) = router.decide(uri, source: .link, now: now) else {
            Issue.record("not completed")
            return
        }
        #expect(done.status == .completed)
        #expect(
            done.result
                == AuthorizationResult(
                    code: "C0DE", state: s.codeLogin.state, redirectURI: "com.example.app:/callback", callbackURI: uri,
                    issuer: nil, codeVerifier: s.codeLogin.codeVerifier, nonce: s.codeLogin.nonce))
        #expect(done.finishedAt == now)
    }

    @Test("the decision does not change the table; replace does")
    func decideIsPure() throws {
        var (router, s) = try Fixtures.router()
        let d = router.decide("com.example.app:/callback?code=c&state=\(s.codeLogin.state)", source: .link, now: now)
        #expect(router.session(s.id)?.status == .pending)
        #expect(router.pendingCount == 1)
        router.replace(d.session!)
        #expect(router.session(s.id)?.status == .completed)
        #expect(router.pendingCount == 0)
    }

    @Test("compacting after a burst keeps every session findable by id, state and owner")
    func compactAfterBurst() throws {
        var router = Router()
        let sessions = try (1...300).map { n in try Fixtures.session(Fixtures.request(), n: n, owner: ":1.\(n)") }
        for s in sessions { router.insert(s) }
        for s in sessions.dropFirst(10) { router.remove(s.id) }
        router.compact()
        #expect(router.pendingCount == 10)
        for (n, s) in zip(1..., sessions.prefix(10)) {
            #expect(router.session(s.id) == s)
            #expect(router.sessions.sessions(ownedBy: ":1.\(n)").map(\.id) == [s.id])
            let d = router.decide(
                "com.example.app:/callback?code=c&state=\(s.codeLogin.state)", source: .link, now: now)
            #expect(d.session?.status == .completed)
        }
        for s in sessions.dropFirst(10).prefix(5) {
            #expect(router.session(s.id) == nil)
            #expect(
                router.decide("com.example.app:/callback?code=c&state=\(s.codeLogin.state)", source: .link, now: now)
                    .refusalCode == .unknownState)
        }
    }

    @Test("a state completes once; a replay is refused and the result kept (S2)")
    func replay() throws {
        var (router, s) = try Fixtures.router()
        let uri = "com.example.app:/callback?code=c&state=\(s.codeLogin.state)"
        router.replace(router.decide(uri, source: .link, now: now).session!)
        let again = router.decide(uri, source: .link, now: now)
        #expect(again.refusalCode == .replayed)
        #expect(router.session(s.id)?.result?.code == "c")
    }

    @Test(
        "unknown, empty or missing states never match (S1, U2, U3)",
        arguments: [
            "com.example.app:/callback?code=c&state=nope", "com.example.app:/callback?code=c&state=",
            "com.example.app:/callback?code=c",
        ])
    func unknownState(_ uri: String) throws {
        let (router, s) = try Fixtures.router()
        let d = router.decide(uri, source: .link, now: now)
        #expect(d.refusalCode == .unknownState || d.refusalCode == .invalidArgument)
        #expect(router.session(s.id)?.status == .pending)
    }

    @Test("state near-misses are not the state (U3)")
    func nearMisses() throws {
        let (router, s) = try Fixtures.router()
        for variant in [
            s.codeLogin.state + "1", String(s.codeLogin.state.dropLast()), s.codeLogin.state.uppercased(),
            s.codeLogin.state + "%20",
            s.codeLogin.state + "+",
        ] {
            let d = router.decide("com.example.app:/callback?code=c&state=\(variant)", source: .link, now: now)
            #expect(d.refusalCode == .unknownState, "\(variant)")
        }
    }

    @Test(
        "duplicate or conflicting parameters are refused, the session untouched (U1)",
        arguments: [
            "code=c&state=S&state=S", "code=a&code=b&state=S", "code=c&error=x&state=S",
            "resume_uri=https%3A%2F%2Fa&code=c&state=S",
            "error=a&error=b&state=S", "iss=a&iss=b&code=c&state=S",
        ])
    func duplicates(_ query: String) throws {
        let (router, s) = try Fixtures.router(Fixtures.request(app: "com.example.app:/callback"))
        let d = router.decide(
            "com.example.app:/callback?" + query.replacingState(s.codeLogin.state), source: .link, now: now)
        #expect(d.refusalCode == .invalidArgument, "\(d)")
        #expect(router.session(s.id)?.status == .pending)
    }

    @Test("response parameters are never read from the fragment (U7)")
    func fragment() throws {
        let (router, s) = try Fixtures.router()
        #expect(
            router.decide("com.example.app:/callback#code=C&state=\(s.codeLogin.state)", source: .link, now: now)
                .refusalCode
                == .invalidArgument)
        #expect(
            router.decide("com.example.app:/callback?state=\(s.codeLogin.state)#code=EVIL", source: .link, now: now)
                .refusalCode == .invalidArgument)
        guard
            case .complete(let done) = router.decide(
                "com.example.app:/callback?code=C&state=\(s.codeLogin.state)#_=_", source: .link, now: now)
        else {
            Issue.record("benign fragment refused")
            return
        }
        #expect(done.result?.code == "C")
    }

    @Test("the state's session must own the URI, byte for byte (U8, S3)")
    func mismatch() throws {
        let (router, s) = try Fixtures.router()
        let d = router.decide("com.example.app:/callback/?code=c&state=\(s.codeLogin.state)", source: .link, now: now)
        #expect(d.refusalCode == .callbackMismatch)
        #expect(d.refusal?.message.contains("trailing slash") == true)
        // App A's state on app B's scheme.
        let b = router.decide("com.other.app:/callback?code=c&state=\(s.codeLogin.state)", source: .link, now: now)
        #expect(b.refusalCode == .callbackMismatch)
    }

    @Test("a provider error fails the session with its words, charset-checked (S6)")
    func providerError() throws {
        let (router, s) = try Fixtures.router()
        let d = router.decide(
            "com.example.app:/callback?error=access_denied&error_description=User%20said%20no&error_uri=javascript%3Aalert(1)&state=\(s.codeLogin.state)",
            source: .link, now: now)
        guard case .fail(let f) = d else {
            Issue.record("not failed")
            return
        }
        #expect(f.status == .failed)
        #expect(f.failure?.code == .authorizationFailed)
        #expect(f.failure?.providerError == "access_denied")
        #expect(f.failure?.providerDescription == "User said no")
        #expect(f.codeLogin.codeVerifier == nil)
        let html = router.decide(
            "com.example.app:/callback?error=%22x%5C&error_description=%3Cscript%3E%22&state=\(s.codeLogin.state)",
            source: .link, now: now)
        guard case .fail(let g) = html else {
            Issue.record("not failed")
            return
        }
        #expect(g.failure?.providerError == "invalid_response")
        #expect(g.failure?.providerDescription == nil)
    }

    @Test("a callback after the ttl is refused as expired (S7)")
    func expired() throws {
        let (router, s) = try Fixtures.router()
        let d = router.decide(
            "com.example.app:/callback?code=c&state=\(s.codeLogin.state)", source: .link, now: s.expiresAt)
        #expect(d.refusalCode == .expired)
        let e = try #require(router.deadlineReached(s.id, now: s.expiresAt).session)
        #expect(e.status == .expired && e.failure?.code == .expired)
        #expect(router.deadlineReached(s.id, now: s.expiresAt - 1).changes.isEmpty)
    }

    @Test("a redirect with neither code nor error is refused")
    func empty() throws {
        let (router, s) = try Fixtures.router()
        #expect(
            router.decide("com.example.app:/callback?state=\(s.codeLogin.state)", source: .link, now: now).refusalCode
                == .invalidArgument)
    }

    @Test("web links pass through unless their state names a session (R5, U9)")
    func passthrough() throws {
        let (router, s) = try Fixtures.router(Fixtures.request(redirect: "https://example.com/cb"))
        for url in [
            "https://example.com/other?x=1#f", "https://example.com/cb?state=unknown", "http://news.example/a b",
            "https://x/%zz",
            "https://example.com/cb?code=1&state=a&state=b",
        ] {
            #expect(router.decide(url, source: .link, now: now) == .passthrough(url), "\(url)")
        }
        // A look-alike carrying the real state is refused, never forwarded.
        let look = router.decide(
            "https://example.com.evil/cb?code=c&state=\(s.codeLogin.state)", source: .link, now: now)
        #expect(look.refusalCode == .callbackMismatch)
        // A malformed URL whose state is known is refused, not forwarded.
        let bad = router.decide("https://example.com/cb?code=%zz&state=\(s.codeLogin.state)", source: .link, now: now)
        #expect(bad.refusalCode == .invalidArgument)
        guard
            case .complete = router.decide(
                "https://example.com/cb?code=c&state=\(s.codeLogin.state)", source: .link, now: now)
        else {
            Issue.record("claimed callback not routed")
            return
        }
    }

    @Test(
        "other schemes are not callbacks (R5)",
        arguments: ["file:///etc/passwd", "javascript:alert(1)", "mailto:a@b", "smb://host/x"])
    func otherSchemes(_ url: String) throws {
        let (router, _) = try Fixtures.router()
        #expect(router.decide(url, source: .link, now: now).refusalCode == .notACallback)
    }

    @Test("a loopback listener accepts only its own session's state (S3)")
    func loopbackSource() throws {
        var router = Router()
        let a = try Fixtures.session(Fixtures.request(redirect: "http://127.0.0.1/cb"), n: 1, port: 40001)
        let b = try Fixtures.session(Fixtures.request(redirect: "http://127.0.0.1/cb"), n: 2, port: 40002)
        router.insert(a)
        router.insert(b)
        let onA = router.decide(
            "http://127.0.0.1:40001/cb?code=c&state=\(b.codeLogin.state)", source: .loopback(a.id), now: now)
        #expect(onA.refusalCode == .callbackMismatch)
        guard
            case .complete(let done) = router.decide(
                "http://127.0.0.1:40002/cb?code=c&state=\(b.codeLogin.state)", source: .loopback(b.id), now: now)
        else {
            Issue.record("loopback not completed")
            return
        }
        #expect(done.result?.redirectURI == "http://127.0.0.1:40002/cb")
    }

    @Test("RFC 9207: iss is compared after form decoding; a mismatch fails without the code (S4, S5)")
    func issuer() throws {
        let (router, s) = try Fixtures.router(Fixtures.request { $0.issuer = "https://as.example" })
        let base = "com.example.app:/callback?code=c&state=\(s.codeLogin.state)"
        guard case .complete(let ok) = router.decide(base + "&iss=https%3A%2F%2Fas.example", source: .link, now: now)
        else {
            Issue.record("matching iss refused")
            return
        }
        #expect(ok.result?.issuer == "https://as.example")
        for bad in ["https%3A%2F%2Fevil.example", "https%3A%2F%2Fas.example%2F", "https://as.example+"] {
            guard case .fail(let f) = router.decide(base + "&iss=" + bad, source: .link, now: now) else {
                Issue.record("\(bad)")
                continue
            }
            #expect(f.failure?.code == .issuerMismatch)
            #expect(f.result == nil)
        }
        guard case .complete = router.decide(base, source: .link, now: now) else {
            Issue.record("missing iss without require_iss")
            return
        }
        let (strict, t) = try Fixtures.router(
            Fixtures.request {
                $0.issuer = "https://as.example"
                $0.login.requireIssuer = true
            })
        guard
            case .fail(let f) = strict.decide(
                "com.example.app:/callback?code=c&state=\(t.codeLogin.state)", source: .link, now: now)
        else {
            Issue.record("missing iss accepted")
            return
        }
        #expect(f.failure?.code == .issuerMismatch)
    }

    @Test("owner checks, cancel, claim, owner leaving (D1, D2)")
    func owners() throws {
        var router = Router()
        let withToken = try Fixtures.claimable(n: 1, digest: [1, 2, 3])
        let plain = try Fixtures.session(Fixtures.request(), n: 2)
        router.insert(withToken)
        router.insert(plain)
        #expect(
            router.owned(withToken.id, by: Fixtures.intruder)
                == .failure(
                    RouterError(
                        .accessDenied,
                        "session id1 belongs to another connection; only the connection that began it (or one that claimed it with its claim_token) may use it"
                    )))
        let cancelled = router.cancel(plain.id, by: Fixtures.intruder, now: now)
        #expect(cancelled.refusal?.code == .accessDenied && cancelled.changes.isEmpty)
        let noToken = router.claim(plain.id, tokenDigest: [1, 2, 3], by: Fixtures.intruder)
        #expect(noToken.refusal?.code == .accessDenied && noToken.changes.isEmpty)
        let wrongToken = router.claim(withToken.id, tokenDigest: [1, 2, 4], by: Fixtures.intruder)
        #expect(wrongToken.refusal?.code == .accessDenied && wrongToken.changes.isEmpty)
        router.apply(router.ownerGone(Fixtures.owner, now: now).changes)
        #expect(router.session(withToken.id)?.owner == nil)
        #expect(router.session(withToken.id)?.status == .pending)
        #expect(router.session(plain.id)?.status == .cancelled)
        let claimed = try #require(router.claim(withToken.id, tokenDigest: [1, 2, 3], by: ":1.7").session)
        #expect(claimed.ownerName == ":1.7")
        // The owner index follows every change: the old owner holds nothing now, the claimer holds one.
        #expect(router.ownerGone(Fixtures.owner, now: now).changes.isEmpty)
        #expect(
            router.ownerGone(":1.7", now: now).changes.isEmpty, "claiming returns a copy; the table changes on replace")
        router.replace(claimed)
        #expect(router.ownerGone(":1.7", now: now).changes.map(\.id) == [withToken.id])
        #expect(router.ownerGone(":1.99", now: now).changes.isEmpty)
        router.remove(withToken.id)
        #expect(router.ownerGone(":1.7", now: now).changes.isEmpty)
    }

    @Test("limits per owner and in all (X2)")
    func limits() throws {
        var router = Router(limits: Limits(maxPendingPerOwner: 2, maxPendingTotal: 3))
        for n in 1...2 { router.insert(try Fixtures.session(Fixtures.request(), n: n)) }
        let plan = try SessionPlan.make(Fixtures.request(), owner: Fixtures.caller, limits: router.limits)
        #expect(throws: RouterError.self) { try router.admit(plan) }
        let other = try SessionPlan.make(Fixtures.request(), owner: Caller(name: ":1.5"), limits: router.limits)
        try router.admit(other)
        router.insert(try Fixtures.session(Fixtures.request(), n: 3, owner: ":1.5"))
        #expect(throws: RouterError.self) { try router.admit(other) }
    }

    @Test("releasing the result wipes the code and verifier; a later Wait is told so")
    func delivery() throws {
        var (router, s) = try Fixtures.router()
        let done = router.decide("com.example.app:/callback?code=c&state=\(s.codeLogin.state)", source: .link, now: now)
            .session!
        router.replace(done)
        guard case .success(let r)? = router.session(s.id)?.waitAnswer else {
            Issue.record("no result")
            return
        }
        #expect(r.code == "c" && r.codeVerifier == s.codeLogin.codeVerifier)
        let wiped = done.releasingResult()
        #expect(wiped.result?.code == "" && wiped.result?.codeVerifier == nil && wiped.codeLogin.codeVerifier == nil)
        guard case .failure(let e)? = wiped.waitAnswer else {
            Issue.record("released, yet answered")
            return
        }
        #expect(e.code == .alreadyDelivered)
    }

    @Test("finished sessions are purged after ttl and grace")
    func purge() throws {
        var (router, s) = try Fixtures.router(limits: Limits(gracePeriod: 60))
        let done = router.decide(
            "com.example.app:/callback?code=c&state=\(s.codeLogin.state)", source: .link, now: now + 10
        )
        .session!
        router.replace(done)
        // The result is released first, when the grace period ends; the record goes after its ttl.
        #expect(router.deadline(of: done) == now + 10 + 60)
        router.apply(router.deadlineReached(s.id, now: now + 70).changes)
        #expect(router.deadline(of: router.session(s.id)!) == s.expiresAt)
        #expect(router.deadlineReached(s.id, now: s.expiresAt - 1).changes.isEmpty)
        #expect(router.deadlineReached(s.id, now: s.expiresAt).changes == [.remove(s.id)])
    }
}

extension String {
    func replacingState(_ state: String) -> String {
        split(separator: "&").map { $0 == "state=S" ? "state=" + state : String($0) }.joined(separator: "&")
    }
}

@Suite("Router: shared parts")
struct RouterSharingTests {
    @Test("sessions share one copy of a callback, and it goes with the last of them")
    func interning() throws {
        var router = Router()
        let a = try Fixtures.session(Fixtures.request(), n: 1)
        let b = try Fixtures.session(Fixtures.request(), n: 2)
        let loop = try Fixtures.session(Fixtures.request(redirect: "http://127.0.0.1/cb"), n: 3, port: 40123)
        router.insert(a)
        router.insert(b)
        router.insert(loop)
        #expect(router.session(a.id)!.codeLogin.redirect === router.session(b.id)!.codeLogin.redirect)
        #expect(router.internedCount == 3)  // two callbacks, one origin
        router.remove(loop.id)
        #expect(router.internedCount == 2)
        router.remove(a.id)
        router.remove(b.id)
        #expect(router.internedCount == 0)
        #expect(router.count == 0)
    }
}
