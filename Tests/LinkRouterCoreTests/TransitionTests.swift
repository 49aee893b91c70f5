import LinkRouterCore
import Testing

/// Each event's transition, with no bus and no I/O: the changes the daemon
/// must write, every effect it must carry out, and what the caller hears.
/// The executor's I/O is covered by the integration suites.
@Suite("Transitions: every event names its changes and effects")
struct TransitionTests {
    let now = Fixtures.now

    @Test("a completing callback: one update, written or refused; listener, waiters, status and purge deadline; the outcome")
    func completes() throws {
        let (router, s) = try Fixtures.router()
        let t = router.route("com.example.app:/callback?code=C&state=\(s.state)", source: .link, via: "test", now: now)
        let done = try #require(t.session)
        #expect(t.changes == [.update(done)])
        #expect(t.ifWriteFails == .refuse)
        #expect(t.reply == .routed(.completed))
        #expect(done.status == .completed && done.result?.code == "C")
        #expect(Array(t.effects.prefix(4)) == [.closeListener(s.id), .answerWaiters(s.id), .emitStatus(s.id, .completed),
                                               .scheduleDeadline(s.id, at: router.deadline(of: done))])
        #expect(t.effects.count == 5)
        guard case .log(let line) = t.effects[4] else { Issue.record("no log line"); return }
        #expect(line.priority == .info && !line.text.contains("C&") && !line.text.contains(s.state))
    }

    @Test("a refusal changes nothing, writes nothing and logs why; the state is never in the line")
    func refusal() throws {
        let (router, s) = try Fixtures.router()
        let t = router.route("com.example.app:/callback?code=C&state=xyzzy-no-such", source: .link, via: "test", now: now)
        #expect(t.changes.isEmpty)
        guard case .refused(let e) = t.reply else { Issue.record("not refused"); return }
        #expect(e.code == .unknownState)
        guard case .log(let line)? = t.effects.first else { Issue.record("no log line"); return }
        #expect(line.priority == .notice && line.text.contains("UnknownState") && line.text.contains("state hash") && !line.text.contains("xyzzy"))
        #expect(router.session(s.id)?.status == .pending)
    }

    @Test("a web link that is no callback goes to the web browser; nothing is written")
    func passthrough() throws {
        let (router, _) = try Fixtures.router()
        let t = router.route("https://example.org/page?x=1#y", source: .link, via: "test", now: now)
        #expect(t.changes.isEmpty && t.reply == .routed(.passthrough))
        #expect(t.effects.first == .openBrowser("https://example.org/page?x=1#y", in: .web))
    }

    @Test("resume: the browser that began the login reopens resume_uri, or the owner is signalled, or nothing; refused when the owner is gone")
    func resume() throws {
        func world(_ mode: String) throws -> (Router, Session) {
            try Fixtures.router(Fixtures.request(app: "com.example.app:/app") { $0.resume = mode })
        }
        let uri = { (s: Session) in "com.example.app:/app?state=\(s.state)&resume_uri=https%3A%2F%2Fauth.example.com%2Fresume" }
        var (router, s) = try world("browser")
        var t = router.route(uri(s), source: .link, via: "test", now: now)
        #expect(t.effects.first == .openBrowser("https://auth.example.com/resume", in: .sameAs(nil)))
        #expect(t.effects.contains(.emitStatus(s.id, .resumed)) && t.reply == .routed(.resumed))
        #expect(t.session?.resumeOpened == true)

        (router, s) = try world("client")
        t = router.route(uri(s), source: .link, via: "test", now: now)
        #expect(t.effects.first == .requestResume(s.id, owner: Fixtures.owner, resumeURI: "https://auth.example.com/resume"))
        // Parked: the owner left with a claim token, and nobody has claimed it yet.
        var parked = try #require(router.session(s.id))
        parked.owner = nil
        router.replace(parked)
        t = router.route(uri(s), source: .link, via: "test", now: now)
        guard case .refused(let e) = t.reply else { Issue.record("not refused"); return }
        #expect(e.code == .browserFailed && t.changes.isEmpty)

        (router, s) = try world("none")
        t = router.route(uri(s), source: .link, via: "test", now: now)
        #expect(!t.effects.contains { if case .openBrowser = $0 { true } else if case .requestResume = $0 { true } else { false } })
    }

    @Test("the browser that began the login cannot take resume_uri: the session fails with BrowserFailed, its waiters hear it, once")
    func resumeBrowserFailed() throws {
        var (router, s) = try Fixtures.router(Fixtures.request(app: "com.example.app:/app") { $0.resume = "browser" })
        let t = router.resumeBrowserFailed(s.id, reason: "the browser that began this login (gone.desktop) is no longer installed", now: now)
        let failed = try #require(t.session)
        #expect(failed.status == .failed && failed.failure?.code == .browserFailed)
        #expect(failed.failure?.message.contains("gone.desktop") == true && failed.failure?.message.contains("begin a new login") == true)
        #expect(t.effects.contains(.answerWaiters(s.id)) && t.effects.contains(.emitStatus(s.id, .failed)))
        #expect(t.ifWriteFails == .keepInMemory)
        router.apply(t.changes)
        #expect(router.resumeBrowserFailed(s.id, reason: "again", now: now).changes.isEmpty, "a finished session is left alone")
        s = try #require(router.session(s.id))
        #expect(s.status == .failed)
    }

    @Test("begin: an insert, written or refused; the browser opens on the authorize URL; its expiry is queued")
    func begin() throws {
        let router = Router()
        let plan = try SessionPlan.make(Fixtures.request(), owner: Fixtures.owner, limits: router.limits)
        let t = router.begin(plan, secrets: Fixtures.secrets(), claimTokenDigest: nil, browser: "b.desktop", now: now)
        let s = try #require(t.session)
        #expect(t.changes == [.insert(s)] && t.ifWriteFails == .refuse)
        #expect(s.browser == "b.desktop" && s.owner == Fixtures.owner)
        guard case .begun(let id, let url) = t.reply else { Issue.record("no reply"); return }
        #expect(id == s.id && url.contains("state=\(s.state)"))
        #expect(t.effects.contains(.openBrowser(url, in: .entry("b.desktop"))))
        #expect(t.effects.contains(.scheduleDeadline(s.id, at: s.expiresAt)))
        let quiet = router.begin(plan, secrets: Fixtures.secrets(), claimTokenDigest: nil, browser: nil, now: now)
        #expect(!quiet.effects.contains { if case .openBrowser = $0 { true } else { false } })
    }

    @Test("wait: parked while pending; answered at once when finished, changing nothing (a reply cannot be confirmed)")
    func wait() throws {
        var (router, s) = try Fixtures.router()
        #expect(try router.wait(s.id, by: Fixtures.owner, timeoutMilliseconds: 5).effects == [.parkWait(s.id, timeoutMilliseconds: 5)])
        #expect(throws: RouterError.self) { try router.wait(s.id, by: Fixtures.intruder, timeoutMilliseconds: 0) }
        router.apply(router.route("com.example.app:/callback?code=C&state=\(s.state)", source: .link, via: "test", now: now).changes)
        for _ in 0..<2 {
            let t = try router.wait(s.id, by: Fixtures.owner, timeoutMilliseconds: 0)
            guard case .waited(.success(let r)) = t.reply else { Issue.record("no answer"); return }
            #expect(r.code == "C" && t.changes.isEmpty && t.effects.isEmpty)
        }
    }

    @Test("acknowledge: owner only, after the result; wipes it (written or refused) and folds the WAL; twice is nothing")
    func acknowledge() throws {
        var (router, s) = try Fixtures.router()
        #expect(throws: RouterError.self) { try router.acknowledge(s.id, by: Fixtures.owner) }
        router.apply(router.route("com.example.app:/callback?code=C&state=\(s.state)", source: .link, via: "test", now: now).changes)
        #expect(throws: RouterError.self) { try router.acknowledge(s.id, by: Fixtures.intruder) }
        let t = try router.acknowledge(s.id, by: Fixtures.owner)
        let released = try #require(t.session)
        #expect(released.released && released.result?.code == "" && released.codeVerifier == nil)
        #expect(t.ifWriteFails == .refuse && t.effects.contains(.checkpoint))
        #expect(t.effects.contains(.scheduleDeadline(s.id, at: router.deadline(of: released))))
        router.apply(t.changes)
        #expect(try router.acknowledge(s.id, by: Fixtures.owner) == Transition())
        guard case .failure(let e)? = router.session(s.id)?.waitAnswer else { Issue.record("still answered"); return }
        #expect(e.code == .alreadyDelivered)
    }

    @Test("an unacknowledged result is released when the grace period ends, the record purged after its ttl")
    func release() throws {
        var (router, s) = try Fixtures.router(limits: Limits(gracePeriod: 60))
        router.apply(router.route("com.example.app:/callback?code=C&state=\(s.state)", source: .link, via: "test", now: now).changes)
        let done = try #require(router.session(s.id))
        #expect(router.deadline(of: done) == now + 60)
        let t = router.deadlineReached(s.id, now: now + 60)
        #expect(t.session?.released == true && t.ifWriteFails == .keepInMemory && t.effects.contains(.checkpoint))
        router.apply(t.changes)
        #expect(router.deadline(of: router.session(s.id)!) == s.expiresAt)
        #expect(router.deadlineReached(s.id, now: s.expiresAt).changes == [.remove(s.id)])
    }

    @Test("cancel and claim: owner only; cancel finishes the session with every effect, twice is nothing")
    func cancelAndClaim() throws {
        var (router, s) = try Fixtures.router()
        #expect(throws: RouterError.self) { try router.cancel(s.id, by: Fixtures.intruder, now: now) }
        let t = try router.cancel(s.id, by: Fixtures.owner, now: now)
        let cancelled = try #require(t.session)
        #expect(cancelled.status == .cancelled && t.ifWriteFails == .refuse)
        #expect(t.effects.contains(.answerWaiters(s.id)) && t.effects.contains(.emitStatus(s.id, .cancelled)) && t.effects.contains(.closeListener(s.id)))
        router.apply(t.changes)
        #expect(try router.cancel(s.id, by: Fixtures.owner, now: now) == Transition())
        #expect(throws: RouterError(.accessDenied, "the claim token does not match this session's (or it was begun without one)")) {
            try router.claim(s.id, tokenDigest: [1], by: ":1.7")
        }
    }

    @Test("deadlines: expiry (kept in memory if unwritten), then the purge, and nothing while the deadline has moved")
    func deadlines() throws {
        var (router, s) = try Fixtures.router()
        #expect(router.deadlineReached(s.id, now: s.expiresAt - 1) == Transition())
        let expiry = router.deadlineReached(s.id, now: s.expiresAt)
        #expect(expiry.session?.status == .expired && expiry.ifWriteFails == .keepInMemory)
        #expect(expiry.effects.contains(.answerWaiters(s.id)) && expiry.effects.contains(.closeListener(s.id)))
        router.apply(expiry.changes)
        let purgeAt = router.deadline(of: router.session(s.id)!)
        #expect(router.deadlineReached(s.id, now: purgeAt - 1) == Transition())
        let purge = router.deadlineReached(s.id, now: purgeAt)
        #expect(purge.changes == [.remove(s.id)] && purge.effects.contains(.answerWaiters(s.id)))
        router.apply(purge.changes)
        #expect(router.session(s.id) == nil && router.deadlineReached(s.id, now: purgeAt) == Transition())
    }

    @Test("an owner leaving: its waits dropped, a claimable session parked, any other cancelled and wiped")
    func ownerGone() throws {
        var router = Router()
        let plain = try Fixtures.session(Fixtures.request(), n: 1)
        var withToken = try Fixtures.session(Fixtures.request(), n: 2)
        withToken = Session(id: withToken.id, mode: withToken.mode, owner: Fixtures.owner, claimTokenDigest: [9], state: withToken.state,
                            nonce: withToken.nonce, codeVerifier: withToken.codeVerifier, redirect: withToken.redirect, appCallback: nil,
                            authorizationOrigin: withToken.authorizationOrigin, resumeHosts: [], resumePathPrefix: nil, resumeMode: .browser,
                            browser: nil, issuer: nil, requireIssuer: false, createdAt: now, expiresAt: now + 600)
        router.insert(plain)
        router.insert(withToken)
        let t = router.ownerGone(Fixtures.owner, now: now)
        #expect(t.effects.first == .dropWaits(of: Fixtures.owner) && t.ifWriteFails == .keepInMemory)
        let byID = Dictionary(uniqueKeysWithValues: t.changes.compactMap { c -> (SessionID, Session)? in
            if case .update(let s) = c { return (s.id, s) }
            return nil
        })
        #expect(byID[plain.id]?.status == .cancelled && byID[plain.id]?.owner == nil && byID[plain.id]?.codeVerifier == nil)
        #expect(byID[withToken.id]?.status == .pending && byID[withToken.id]?.owner == nil)
        #expect(t.effects.contains(.emitStatus(plain.id, .cancelled)) && !t.effects.contains(.emitStatus(withToken.id, .cancelled)))
        #expect(router.ownerGone(":1.1000", now: now).changes.isEmpty)
    }

    @Test("restore: owners gone are settled in one transition; loopback sessions listen again; every deadline is queued")
    func restore() throws {
        var router = Router()
        let stored = try Fixtures.session(Fixtures.request(redirect: "http://127.0.0.1/cb"), n: 1)
        let other = try Fixtures.session(Fixtures.request(), n: 2, owner: ":1.77")
        router.restore(stored, now: now)
        router.restore(other, now: now)
        let t = router.restored(ownersGone: [":1.77"], now: now)
        #expect(t.ifWriteFails == .keepInMemory)
        #expect(t.changes.map(\.id) == [other.id] && t.session?.status == .cancelled)
        #expect(t.effects.contains(.listen(stored.id)) && !t.effects.contains(.listen(other.id)))
        #expect(t.effects.contains(.scheduleDeadline(stored.id, at: stored.expiresAt)))
        #expect(t.effects.contains(.scheduleDeadline(other.id, at: router.deadline(of: t.session!))))
        // A port that cannot be had again fails that session, with its effects.
        let failed = router.listenerFailed(stored.id, reason: "port taken", now: now)
        #expect(failed.session?.failure?.code == .listenerFailed && failed.effects.contains(.answerWaiters(stored.id)))
        // Stored times that cannot be right expire the session as it comes back (P5).
        var future = Router()
        let ahead = try Fixtures.session(Fixtures.request(), n: 3)
        future.restore(ahead, now: now - 86_400)
        #expect(future.session(ahead.id)?.status == .expired)
    }

    @Test("the executor's order: fallible effects first, the log last, the core's order kept within a rank")
    func ranks() {
        let id = SessionID("a")!
        let effects: [Effect] = [.log(LogLine(.info, "x")), .emitStatus(id, .completed), .answerWaiters(id), .closeListener(id),
                                 .openBrowser("u", in: .web), .scheduleDeadline(id, at: 1), .parkWait(id, timeoutMilliseconds: 0)]
        let sorted = effects.enumerated().sorted { ($0.element.rank, $0.offset) < ($1.element.rank, $1.offset) }.map(\.element)
        #expect(sorted == [.openBrowser("u", in: .web), .parkWait(id, timeoutMilliseconds: 0), .closeListener(id), .answerWaiters(id),
                           .emitStatus(id, .completed), .scheduleDeadline(id, at: 1), .log(LogLine(.info, "x"))])
        #expect(Effect.openBrowser("u", in: .web).undoesOnFailure && !Effect.listen(id).undoesOnFailure)
    }
}
