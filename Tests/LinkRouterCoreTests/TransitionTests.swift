import Testing

@testable import LinkRouterCore

/// Each event's transition, with no bus and no I/O: the changes the daemon
/// must write, every effect it must carry out, and what the caller hears.
/// The executor's I/O is covered by the integration suites.
@Suite("Transitions: every event names its changes and effects")
struct TransitionTests {
    let now = Fixtures.now

    @Test(
        "a completing callback: one update, written or refused; listener, waiters, status and purge deadline; the outcome"
    )
    func completes() throws {
        var (router, s) = try Fixtures.router()
        // Nobody waiting: the listener, the status and the deadline all the same, and no answer.
        let alone = router.route(
            "com.example.app:/callback?code=C&state=\(s.codeLogin.state)", source: .link, via: "test", now: now)
        let finished = try #require(alone.session)
        #expect(
            Array(alone.effects.prefix(3)) == [
                .closeListener(s.id), .emitStatus(s.id, .completed),
                .scheduleDeadline(s.id, at: router.deadline(of: finished)),
            ])
        #expect(alone.effects.count == 4 && alone.answers.isEmpty && alone.core.isEmpty)

        let (wait, _) = try router.holdWait(s.id)
        let t = router.route(
            "com.example.app:/callback?code=C&state=\(s.codeLogin.state)", source: .link, via: "test", now: now)
        let done = try #require(t.session)
        #expect(t.changes == [.update(done)])
        #expect(t.ifWriteFails == .refuse)
        #expect(t.reply == .routed(.completed))
        #expect(done.status == .completed && done.result?.code == "C")
        let result = try #require(done.result)
        #expect(
            Array(t.effects.prefix(4)) == [
                .closeListener(s.id), .answer(wait, .waited(.success(result))), .emitStatus(s.id, .completed),
                .scheduleDeadline(s.id, at: router.deadline(of: done)),
            ])
        #expect(t.core == [.finish(wait)])
        #expect(t.effects.count == 5)
        guard case .log(let line) = t.effects[4] else {
            Issue.record("no log line")
            return
        }
        #expect(line.priority == .info && !line.text.contains("C&") && !line.text.contains(s.codeLogin.state))
    }

    @Test(
        "the click's token goes with one Wait's answer, never two: the first held Wait has it, the other held one and every later Wait have the result without it, and nothing of it is written"
    )
    func handOffOnce() throws {
        func token(_ reply: Transition.Reply?) -> String?? {
            guard case .waited(.success(let r))? = reply else { return .none }
            return .some(r.activationToken)
        }
        let click = ActivationContext(activationToken: "click-token", desktopStartupID: nil)
        // Two Waits held when the callback arrives.
        var (router, s) = try Fixtures.router()
        let (first, _) = try router.holdWait(s.id)
        let (second, _) = try router.holdWait(s.id)
        let routed = router.route(
            "com.example.app:/callback?code=c&state=\(s.codeLogin.state)", source: .link, via: "test", context: click,
            now: now)
        let answers = Dictionary(
            uniqueKeysWithValues: routed.effects.compactMap { e -> (OperationID, Transition.Reply)? in
                if case .answer(let op, let reply) = e { (op, reply) } else { nil }
            })
        #expect(token(answers[first]) == .some("click-token") && token(answers[second]) == .some(nil), "\(answers)")
        router.take(routed)
        #expect(router.session(s.id)?.handOff == nil && router.session(s.id)?.status == .completed)
        #expect(token(router.wait(s.id, by: Fixtures.owner, timeoutMilliseconds: 0).reply) == .some(nil))

        // None held: the first Wait to come has it (taken in, not written), the next does not.
        var (later, s2) = try Fixtures.router()
        later.take(
            later.route(
                "com.example.app:/callback?code=c&state=\(s2.codeLogin.state)", source: .link, via: "test",
                context: click, now: now))
        let firstWait = later.wait(s2.id, by: Fixtures.owner, timeoutMilliseconds: 0)
        #expect(token(firstWait.reply) == .some("click-token"))
        #expect(firstWait.changes.count == 1 && firstWait.changes.allSatisfy { !$0.isWritten })
        later.take(firstWait)
        let again = later.wait(s2.id, by: Fixtures.owner, timeoutMilliseconds: 0)
        #expect(token(again.reply) == .some(nil) && again.changes.isEmpty)
        guard case .waited(.success(let r)) = again.reply else {
            throw AccountTokenTests.Failure("no result: \(again.reply)")
        }
        #expect(r.code == "c", "the result stays for the next Wait")
    }

    @Test("a refusal changes nothing, writes nothing and logs why; the state is never in the line")
    func refusal() throws {
        let (router, s) = try Fixtures.router()
        let t = router.route(
            "com.example.app:/callback?code=C&state=xyzzy-no-such", source: .link, via: "test", now: now)
        #expect(t.changes.isEmpty && t.core.isEmpty)
        guard case .refused(let e) = t.reply else {
            Issue.record("not refused")
            return
        }
        #expect(e.code == .unknownState)
        guard case .log(let line)? = t.effects.first else {
            Issue.record("no log line")
            return
        }
        #expect(
            line.priority == .notice && line.text.contains("UnknownState") && line.text.contains("state hash")
                && !line.text.contains("xyzzy"))
        #expect(router.session(s.id)?.status == .pending)
    }

    @Test("a web link that is no callback goes to the web browser; nothing is written")
    func passthrough() throws {
        let (router, _) = try Fixtures.router()
        let t = router.route("https://example.org/page?x=1#y", source: .link, via: "test", now: now)
        #expect(t.changes.isEmpty && t.reply == .routed(.passthrough))
        #expect(t.effects.first == .openBrowser("https://example.org/page?x=1#y", in: .web))
    }

    @Test(
        "resume: the browser that began the login reopens resume_uri, or the owner is signalled, or nothing; refused when the owner is gone"
    )
    func resume() throws {
        func world(_ mode: String) throws -> (Router, Session) {
            try Fixtures.router(Fixtures.request(app: "com.example.app:/app") { $0.login.resume = mode })
        }
        let uri = { (s: Session) in
            "com.example.app:/app?state=\(s.codeLogin.state)&resume_uri=https%3A%2F%2Fauth.example.com%2Fresume"
        }
        var (router, s) = try world("browser")
        var t = router.route(uri(s), source: .link, via: "test", now: now)
        #expect(t.effects.first == .openBrowser("https://auth.example.com/resume", in: .sameAs(nil)))
        #expect(t.effects.contains(.emitStatus(s.id, .resumed)) && t.reply == .routed(.resumed))
        #expect(t.session?.codeLogin.resumeOpened == true)

        (router, s) = try world("client")
        t = router.route(uri(s), source: .link, via: "test", now: now)
        #expect(
            t.effects.first == .requestResume(s.id, owner: Fixtures.owner, resumeURI: "https://auth.example.com/resume")
        )
        // Parked: the owner left with a claim token, and nobody has claimed it yet.
        var parked = try #require(router.session(s.id))
        parked.owner = nil
        router.replace(parked)
        t = router.route(uri(s), source: .link, via: "test", now: now)
        guard case .refused(let e) = t.reply else {
            Issue.record("not refused")
            return
        }
        #expect(e.code == .browserFailed && t.changes.isEmpty)

        (router, s) = try world("none")
        t = router.route(uri(s), source: .link, via: "test", now: now)
        #expect(
            !t.effects.contains {
                if case .openBrowser = $0 { true } else if case .requestResume = $0 { true } else { false }
            })
    }

    @Test(
        "the browser that began the login cannot take resume_uri: the session fails with BrowserFailed, its waiters hear it, once"
    )
    func resumeBrowserFailed() throws {
        var (router, s) = try Fixtures.router(
            Fixtures.request(app: "com.example.app:/app") { $0.login.resume = "browser" })
        let (wait, _) = try router.holdWait(s.id)
        let resume = router.route(
            "com.example.app:/app?state=\(s.codeLogin.state)&resume_uri=https%3A%2F%2Fauth.example.com%2Fresume",
            source: .link, via: "test", now: now)
        let reopen = try #require(resume.effects.first)
        #expect(reopen == .openBrowser("https://auth.example.com/resume", in: .sameAs(nil)) && reopen.undoesOnFailure)
        // The executor undid the resume (nothing was taken in) and tells the core what failed.
        let error = RouterError(
            .browserFailed, "the browser that began this login (gone.desktop) is no longer installed")
        let t = router.effectFailed(reopen, undone: resume.changes, error: error, now: now)
        let failed = try #require(t.session)
        #expect(failed.status == .failed && failed.failure?.code == .browserFailed)
        #expect(
            failed.failure?.message.contains("gone.desktop") == true
                && failed.failure?.message.contains("begin a new login") == true)
        let failure = try #require(failed.failure)
        #expect(
            t.effects.contains(.answer(wait, .waited(.failure(failure.error))))
                && t.effects.contains(.emitStatus(s.id, .failed)))
        #expect(t.core == [.finish(wait)])
        #expect(t.ifWriteFails == .keepInMemory)
        // Any other failure has no consequence of its own: the caller heard it, the session is as it was.
        #expect(
            router.effectFailed(.openBrowser("https://example.org/", in: .web), undone: [], error: error, now: now)
                == Transition())
        #expect(
            router.effectFailed(
                .openBrowser("https://a.example/auth", in: .entry("b.desktop")), undone: [.update(s)], error: error,
                now: now) == Transition())
        #expect(
            router.effectFailed(
                .requestResume(s.id, owner: Fixtures.owner, resumeURI: "https://auth.example.com/resume"),
                undone: [.update(s)], error: error, now: now) == Transition())
        #expect(
            router.effectFailed(reopen, undone: [.update(s)], error: RouterError(.storageFailed, "disk full"), now: now)
                == Transition())
        router.take(t)
        #expect(
            router.effectFailed(reopen, undone: [.update(s)], error: error, now: now) == Transition(),
            "a finished session is left alone")
        #expect(router.resumeBrowserFailed(s.id, reason: "again", now: now) == Transition())
        s = try #require(router.session(s.id))
        #expect(s.status == .failed)
    }

    @Test("begin: an insert, written or refused; the browser opens on the authorize URL; its expiry is queued")
    func begin() throws {
        let router = Router()
        let t = router.beginSession(
            Fixtures.request { $0.openBrowser = true }, inputs: Fixtures.inputs(browser: "b.desktop"),
            caller: Fixtures.owner, login: false, now: now)
        let s = try #require(t.session)
        #expect(t.changes == [.insert(s)] && t.ifWriteFails == .refuse)
        #expect(s.codeLogin.browser == "b.desktop" && s.owner == Fixtures.caller)
        guard case .begun(let id, let url) = t.reply else {
            Issue.record("no reply")
            return
        }
        #expect(id == s.id && url.contains("state=\(s.codeLogin.state)"))
        #expect(t.effects.contains(.openBrowser(url, in: .entry("b.desktop"))))
        #expect(t.effects.contains(.scheduleDeadline(s.id, at: s.expiresAt)))
        #expect(t.compensation.isEmpty, "no listener to close for a custom-scheme callback")
        // The app behind a caller seen for the first time is found out, as an operation of its own.
        let identify = try #require(t.started.first)
        #expect(t.started == [identify] && t.operation(identify) == .identification(.identify(name: Fixtures.owner)))
        #expect(
            t.core == [
                .caller(Fixtures.owner, .unknown),
                .track(identify, .identification(Identification(name: Fixtures.owner))),
            ])
        let quiet = router.beginSession(
            Fixtures.request(), inputs: Fixtures.inputs(), caller: Fixtures.owner, login: false, now: now)
        #expect(quiet.session?.codeLogin.browser == nil)
        #expect(!quiet.effects.contains { if case .openBrowser = $0 { true } else { false } })
    }

    @Test(
        "begin refused: the browser lookup or the secrets failed, or the options are wrong; nothing is written, held or started"
    )
    func beginRefused() throws {
        let router = Router()
        let noBrowser = RouterError(.browserFailed, "no default browser is set")
        let browserless = router.beginSession(
            Fixtures.request { $0.openBrowser = true },
            inputs: BeginInputs(
                secrets: .success(Fixtures.secrets()), browser: .failure(noBrowser), claimTokenDigest: nil),
            caller: Fixtures.owner, login: false, now: now)
        #expect(browserless.refusal == noBrowser)
        let noSecrets = RouterError(.internalError, "RAND_bytes failed")
        let secretless = router.beginSession(
            Fixtures.request(), inputs: BeginInputs(secrets: .failure(noSecrets), browser: nil, claimTokenDigest: nil),
            caller: Fixtures.owner, login: false, now: now)
        #expect(secretless.refusal == noSecrets)
        let invalid = router.beginSession(
            Fixtures.request { $0.ttl = 0 }, inputs: Fixtures.inputs(), caller: Fixtures.owner, login: true, now: now)
        #expect(invalid.refusal?.code == .invalidArgument)
        for t in [browserless, secretless, invalid] {
            #expect(t.changes.isEmpty && t.core.isEmpty && t.started.isEmpty && t.answers.isEmpty)
        }
    }

    @Test("wait: parked while pending; answered at once when finished, changing nothing (a reply cannot be confirmed)")
    func wait() throws {
        var (router, s) = try Fixtures.router()
        let held = router.wait(s.id, by: Fixtures.owner, timeoutMilliseconds: 5)
        let op = try #require(held.held)
        let timer = try #require(held.started.first)
        #expect(held.changes.isEmpty && held.effects == [.start(timer, .waitTimer(.timer(milliseconds: 5)))])
        #expect(
            held.core == [
                .hold(op, .wait(s.id, caller: Fixtures.owner, login: false, timer: timer)),
                .track(timer, .waitTimer(WaitTimer(wait: op, milliseconds: 5))),
            ])
        let forever = router.wait(s.id, by: Fixtures.owner, timeoutMilliseconds: 0)
        let untimed = try #require(forever.held)
        #expect(
            forever.effects.isEmpty
                && forever.core == [.hold(untimed, .wait(s.id, caller: Fixtures.owner, login: false, timer: nil))])
        let intruder = router.wait(s.id, by: Fixtures.intruder, timeoutMilliseconds: 0)
        #expect(intruder.refusal?.code == .accessDenied && intruder.core.isEmpty && intruder.effects.isEmpty)
        router.apply(
            router.route(
                "com.example.app:/callback?code=C&state=\(s.codeLogin.state)", source: .link, via: "test", now: now
            )
            .changes)
        for _ in 0..<2 {
            let t = router.wait(s.id, by: Fixtures.owner, timeoutMilliseconds: 0)
            guard case .waited(.success(let r)) = t.reply else {
                Issue.record("no answer")
                return
            }
            #expect(r.code == "C" && t.changes.isEmpty && t.effects.isEmpty && t.core.isEmpty)
        }
    }

    @Test(
        "acknowledge: owner only, after the result; wipes it (written or refused) and folds the WAL; twice is nothing")
    func acknowledge() throws {
        var (router, s) = try Fixtures.router()
        #expect(
            router.acknowledge(s.id, by: Fixtures.owner).refusal
                == RouterError(
                    .invalidArgument, "the session is still pending; acknowledge its result once Wait has returned it"))
        router.apply(
            router.route(
                "com.example.app:/callback?code=C&state=\(s.codeLogin.state)", source: .link, via: "test", now: now
            )
            .changes)
        let intruder = router.acknowledge(s.id, by: Fixtures.intruder)
        #expect(intruder.refusal?.code == .accessDenied && intruder.changes.isEmpty)
        let t = router.acknowledge(s.id, by: Fixtures.owner)
        let released = try #require(t.session)
        #expect(released.released && released.result?.code == "" && released.codeLogin.codeVerifier == nil)
        #expect(t.ifWriteFails == .refuse && t.effects.contains(.checkpoint))
        #expect(t.effects.contains(.scheduleDeadline(s.id, at: router.deadline(of: released))))
        router.apply(t.changes)
        #expect(router.acknowledge(s.id, by: Fixtures.owner) == Transition())
        guard case .failure(let e)? = router.session(s.id)?.waitAnswer else {
            Issue.record("still answered")
            return
        }
        #expect(e.code == .alreadyDelivered)
    }

    @Test("an unacknowledged result is released when the grace period ends, the record purged after its ttl")
    func release() throws {
        var (router, s) = try Fixtures.router(limits: Limits(gracePeriod: 60))
        router.apply(
            router.route(
                "com.example.app:/callback?code=C&state=\(s.codeLogin.state)", source: .link, via: "test", now: now
            )
            .changes)
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
        let intruder = router.cancel(s.id, by: Fixtures.intruder, now: now)
        #expect(intruder.refusal?.code == .accessDenied && intruder.changes.isEmpty)
        let (wait, _) = try router.holdWait(s.id)
        let t = router.cancel(s.id, by: Fixtures.owner, now: now)
        let cancelled = try #require(t.session)
        #expect(cancelled.status == .cancelled && t.ifWriteFails == .refuse)
        #expect(
            t.effects.contains(
                .answer(wait, .waited(.failure(RouterError(.cancelled, "the session was cancelled by its owner"))))))
        #expect(t.effects.contains(.emitStatus(s.id, .cancelled)) && t.effects.contains(.closeListener(s.id)))
        #expect(t.core == [.finish(wait)])
        router.take(t)
        #expect(router.cancel(s.id, by: Fixtures.owner, now: now) == Transition())
        let claim = router.claim(s.id, tokenDigest: [1], by: ":1.7")
        #expect(
            claim.refusal
                == RouterError(
                    .accessDenied, "the claim token does not match this session's (or it was begun without one)"))
        #expect(claim.changes.isEmpty && claim.core.isEmpty)
    }

    @Test("claim: the claimer owns the session and may wait; its app is found out once")
    func claim() throws {
        var router = Router()
        let s = try Fixtures.claimable(n: 1, digest: [7, 7])
        router.insert(s)
        router.take(router.ownerGone(Fixtures.owner, now: now))
        let t = router.claim(s.id, tokenDigest: [7, 7], by: ":1.7")
        let claimed = try #require(t.session)
        #expect(claimed.owner == Caller(name: ":1.7") && t.reply == .none)
        let identify = try #require(t.started.first)
        #expect(t.core == [.caller(":1.7", .unknown), .track(identify, .identification(Identification(name: ":1.7")))])
        router.take(t)
        #expect(router.wait(s.id, by: ":1.7", timeoutMilliseconds: 0).held != nil)
        #expect(router.wait(s.id, by: Fixtures.owner, timeoutMilliseconds: 0).refusal?.code == .accessDenied)
        // Claimed again by the same connection: nothing more to find out.
        #expect(router.claim(s.id, tokenDigest: [7, 7], by: ":1.7").core.isEmpty)
    }

    @Test("deadlines: expiry (kept in memory if unwritten), then the purge, and nothing while the deadline has moved")
    func deadlines() throws {
        var (router, s) = try Fixtures.router()
        #expect(router.deadlineReached(s.id, now: s.expiresAt - 1) == Transition())
        let (wait, timer) = try router.holdWait(s.id, timeout: 60_000)
        let expiry = router.deadlineReached(s.id, now: s.expiresAt)
        let expired = try #require(expiry.session)
        #expect(expired.status == .expired && expiry.ifWriteFails == .keepInMemory)
        let failure = try #require(expired.failure)
        #expect(
            expiry.effects.contains(.answer(wait, .waited(.failure(failure.error))))
                && expiry.effects.contains(.closeListener(s.id)))
        let timerOp = try #require(timer)
        #expect(expiry.effects.contains(.cancel(timerOp)) && expiry.core == [.finish(wait), .finish(timerOp)])
        router.take(expiry)
        let purgeAt = router.deadline(of: router.session(s.id)!)
        #expect(router.deadlineReached(s.id, now: purgeAt - 1) == Transition())
        let purge = router.deadlineReached(s.id, now: purgeAt)
        #expect(
            purge.changes == [.remove(s.id)] && purge.effects == [.closeListener(s.id), .checkpoint]
                && purge.core.isEmpty)
        // No event holds a Wait on a finished session; one the core still tracked would hear the session is gone.
        var tracking = router
        let stray = OperationID(900)
        tracking.apply(core: [.hold(stray, .wait(s.id, caller: Fixtures.owner, login: false, timer: nil))])
        let told = tracking.deadlineReached(s.id, now: purgeAt)
        #expect(
            told.effects == [
                .closeListener(s.id),
                .answer(stray, .waited(.failure(RouterError(.unknownSession, "the session was purged")))), .checkpoint,
            ])
        #expect(told.core == [.finish(stray)])
        router.take(purge)
        #expect(router.session(s.id) == nil && router.deadlineReached(s.id, now: purgeAt) == Transition())
    }

    @Test("an owner leaving: its waits dropped, a claimable session parked, any other cancelled and wiped")
    func ownerGone() throws {
        var router = Router()
        let plain = try Fixtures.session(Fixtures.request(), n: 1)
        let withToken = try Fixtures.claimable(n: 2, digest: [9])
        router.insert(plain)
        router.insert(withToken)
        let (onPlain, timer) = try router.holdWait(plain.id, timeout: 1000)
        let (onToken, _) = try router.holdWait(withToken.id)
        let t = router.ownerGone(Fixtures.owner, now: now)
        let timerOp = try #require(timer)
        // Dropped, not answered: nobody is there to hear; the timer stops with its Wait.
        #expect(
            Array(t.effects.prefix(3)) == [.forget(onPlain), .cancel(timerOp), .forget(onToken)]
                && t.ifWriteFails == .keepInMemory)
        #expect(t.answers.isEmpty)
        #expect(t.core == [.finish(onPlain), .finish(timerOp), .finish(onToken)])
        let byID = Dictionary(
            uniqueKeysWithValues: t.changes.compactMap { c -> (SessionID, Session)? in
                if case .update(let s) = c { return (s.id, s) }
                return nil
            })
        #expect(
            byID[plain.id]?.status == .cancelled && byID[plain.id]?.owner == nil
                && byID[plain.id]?.codeLogin.codeVerifier == nil)
        #expect(byID[withToken.id]?.status == .pending && byID[withToken.id]?.owner == nil)
        #expect(
            t.effects.contains(.emitStatus(plain.id, .cancelled))
                && !t.effects.contains(.emitStatus(withToken.id, .cancelled)))
        #expect(router.ownerGone(":1.1000", now: now).changes.isEmpty)
        router.take(t)
        #expect(router.running.isEmpty && router.held.calls.isEmpty)
        // The timer's late firing finds nothing.
        #expect(router.completed(timerOp, .waitTimer(.fired), now: now) == Transition())
    }

    @Test(
        "restore: owners gone are settled in one transition; loopback sessions listen again; every deadline is queued")
    func restore() throws {
        var router = Router()
        let stored = try Fixtures.session(Fixtures.request(redirect: "http://127.0.0.1/cb"), n: 1)
        let other = try Fixtures.session(Fixtures.request(), n: 2, owner: ":1.77")
        let back = router.restore([stored, other], previousBusID: "bus-1", now: now)
        // The rows are taken in, not written; then the bus is asked who is still on it.
        #expect(back.changes == [.restore(stored), .restore(other)] && back.changes.allSatisfy { !$0.isWritten })
        let ask = try #require(back.started.first)
        #expect(
            back.effects == [.start(ask, .restore(.busNames))]
                && back.core == [.track(ask, .restore(Restore(previousBusID: "bus-1")))])
        #expect(back.ifWriteFails == .keepInMemory)
        router.take(back)
        let t = router.completed(
            ask, .restore(.busNames(.success(BusSnapshot(id: "bus-1", names: [Fixtures.owner, ":1.3"])))), now: now)
        #expect(t.ifWriteFails == .keepInMemory)
        #expect(t.changes.map(\.id) == [other.id] && t.session?.status == .cancelled)
        let relisten = try #require(t.started.first)
        #expect(t.started == [relisten])
        #expect(
            t.operation(relisten)
                == .code(
                    .listen(
                        stored.id, LoopbackBinding(addresses: ["127.0.0.1"], hostLiteral: "127.0.0.1", port: 49152),
                        path: "/cb")))
        #expect(t.core == [.finish(ask), .track(relisten, .login(stored.id, idle: false))])
        #expect(t.effects.contains(.scheduleDeadline(stored.id, at: stored.expiresAt)))
        #expect(t.effects.contains(.scheduleDeadline(other.id, at: router.deadline(of: t.session!))))
        #expect(t.effects.last == .serve && t.effects.contains(.recordBusID("bus-1")))
        router.take(t)
        // A port that cannot be had again fails that session, with its effects.
        let (wait, _) = try router.holdWait(stored.id)
        let failed = router.completed(
            relisten, .code(.listening(.failure(RouterError(.listenerFailed, "port taken")))), now: now)
        let session = try #require(failed.session)
        #expect(session.failure?.code == .listenerFailed && session.failure?.message.contains("port taken") == true)
        #expect(failed.effects.contains(.answer(wait, .waited(.failure(session.failure!.error)))))
        #expect(failed.core == [.finish(relisten), .finish(wait)])
        #expect(failed.ifWriteFails == .keepInMemory)
        // A port had again changes nothing.
        #expect(
            router.completed(relisten, .code(.listening(.success(49152))), now: now)
                == Transition(core: [.finish(relisten)], ifWriteFails: .keepInMemory))
        // Stored times that cannot be right expire the session as it comes back (P5).
        var future = Router()
        let ahead = try Fixtures.session(Fixtures.request(), n: 3)
        let early = future.restore([ahead], previousBusID: nil, now: now - 86_400)
        #expect(early.session?.status == .expired)
        future.take(early)
        #expect(future.session(ahead.id)?.status == .expired)
    }

    @Test("restore on another bus, or when the bus cannot say: every stored owner is gone")
    func restoreAnotherBus() throws {
        for (previous, answer) in [
            ("bus-0", Result<BusSnapshot, RouterError>.success(BusSnapshot(id: "bus-1", names: [Fixtures.owner]))),
            ("bus-1", .failure(RouterError(.internalError, "no bus"))),
        ] {
            var router = Router()
            let s = try Fixtures.session(Fixtures.request(), n: 1)
            let parked = try Fixtures.claimable(n: 2, digest: [1])
            let back = router.restore([s, parked], previousBusID: previous, now: now)
            router.take(back)
            let t = router.completed(try #require(back.started.first), .restore(.busNames(answer)), now: now)
            let byID = Dictionary(uniqueKeysWithValues: t.changes.map { ($0.id, $0) })
            guard case .update(let cancelled)? = byID[s.id], case .update(let kept)? = byID[parked.id] else {
                Issue.record("\(previous): owners not settled: \(t.changes)")
                continue
            }
            #expect(
                cancelled.status == .cancelled && cancelled.owner == nil && kept.status == .pending
                    && kept.owner == nil, "\(previous)")
            #expect(t.effects.last == .serve)
            if case .failure = answer {
                #expect(!t.effects.contains { if case .recordBusID = $0 { true } else { false } })
                #expect(
                    t.effects.contains {
                        if case .log(let l) = $0 { l.priority == .warning && l.text.contains("no bus") } else { false }
                    })
            } else {
                #expect(t.effects.contains(.recordBusID("bus-1")))
            }
        }
    }

    @Test(
        "the executor's order: fallible effects first, then operations, listeners, answers, status, deadlines; notices, the log and serving last; the core's order kept within a rank"
    )
    func ranks() {
        let id = SessionID("a")!
        let op = OperationID(7)
        let effects: [Effect] = [
            .serve, .log(LogLine(.info, "x")), .notify(summary: "s", body: "b"), .checkpoint, .recordBusID("bus"),
            .emitStatus(id, .completed), .answer(op, .none), .forget(op), .closeListener(id),
            .start(op, .waitTimer(.timer(milliseconds: 1))),
            .cancel(op), .openBrowser("u", in: .web), .scheduleDeadline(id, at: 1),
            .requestResume(id, owner: ":1.1", resumeURI: "u"),
        ]
        let sorted = effects.enumerated().sorted { ($0.element.rank, $0.offset) < ($1.element.rank, $1.offset) }.map(
            \.element)
        #expect(
            sorted == [
                .openBrowser("u", in: .web), .requestResume(id, owner: ":1.1", resumeURI: "u"),
                .start(op, .waitTimer(.timer(milliseconds: 1))), .cancel(op), .closeListener(id), .answer(op, .none),
                .forget(op),
                .emitStatus(id, .completed), .scheduleDeadline(id, at: 1), .checkpoint, .recordBusID("bus"),
                .log(LogLine(.info, "x")), .notify(summary: "s", body: "b"), .serve,
            ])
        let binding = LoopbackBinding(addresses: ["127.0.0.1"], hostLiteral: "127.0.0.1", port: 0)
        #expect(
            Effect.openBrowser("u", in: .web).undoesOnFailure
                && Effect.requestResume(id, owner: ":1.1", resumeURI: "u").undoesOnFailure)
        #expect(!Effect.start(op, .begin(.listen(id, binding, path: "/"))).undoesOnFailure)
        #expect(
            !Effect.start(
                op,
                .delivery(
                    .deliver(url: "com.example.app:/x", app: LinkApp(id: "a.desktop", delivery: .dbus), context: .none))
            ).undoesOnFailure)
        #expect(effects.filter(\.undoesOnFailure).count == 2)
    }
}

/// Work the daemon waits on (`Operation`): what the core tracks while it
/// runs, and what its outcome (`Router.completed`) decides.
@Suite("Operations: held calls, timers, discovery, listeners")
struct OperationTests {
    let now = Fixtures.now

    @Test(
        "a Wait's timer fires: the Wait hears Timeout, both operations finish, the session is untouched and can be waited for again"
    )
    func waitTimesOut() throws {
        var (router, s) = try Fixtures.router()
        let (wait, timer) = try router.holdWait(s.id, timeout: 250)
        let timerOp = try #require(timer)
        let fired = router.completed(timerOp, .waitTimer(.fired), now: now)
        #expect(fired.changes.isEmpty && fired.reply == .none)
        #expect(
            fired.effects == [
                .answer(
                    wait,
                    .refused(
                        RouterError(
                            .timeout,
                            "no callback arrived within 250 ms; the session is still pending and can be waited for again"
                        )))
            ])
        #expect(fired.core == [.finish(timerOp), .finish(wait)])
        router.take(fired)
        #expect(router.running.isEmpty && router.held.calls.isEmpty && router.session(s.id)?.status == .pending)
        // The session finishing later answers nobody; a new Wait is held again.
        let later = router.route(Fixtures.callback(s), source: .link, via: "test", now: now)
        #expect(later.answers.isEmpty && later.core.isEmpty)
        #expect(router.wait(s.id, by: Fixtures.owner, timeoutMilliseconds: 0).held != nil)
    }

    @Test(
        "a session finishing before the timer answers the Wait and cancels the timer; the timer's late firing does nothing"
    )
    func finishBeatsTimer() throws {
        var (router, s) = try Fixtures.router()
        let (wait, timer) = try router.holdWait(s.id, timeout: 250)
        let timerOp = try #require(timer)
        let t = router.route(Fixtures.callback(s), source: .link, via: "test", now: now)
        let result = try #require(t.session?.result)
        #expect(t.answers == [.answer(wait, .waited(.success(result)))] && t.effects.contains(.cancel(timerOp)))
        #expect(t.core == [.finish(wait), .finish(timerOp)])
        router.take(t)
        #expect(router.running.isEmpty && router.held.calls.isEmpty)
        #expect(router.completed(timerOp, .waitTimer(.fired), now: now) == Transition())
    }

    @Test("every held Wait of a session hears its result, in the order they came")
    func severalWaits() throws {
        var (router, s) = try Fixtures.router()
        let (first, _) = try router.holdWait(s.id)
        let (second, timer) = try router.holdWait(s.id, timeout: 10)
        let t = router.cancel(s.id, by: Fixtures.owner, now: now)
        let answer = Transition.Reply.waited(
            .failure(RouterError(.cancelled, "the session was cancelled by its owner")))
        #expect(t.answers == [.answer(first, answer), .answer(second, answer)])
        let timerOp = try #require(timer)
        #expect(t.core == [.finish(first), .finish(second), .finish(timerOp)])
    }

    @Test("an outcome for an operation the core does not track does nothing")
    func unknownOperation() throws {
        let (router, _) = try Fixtures.router()
        let nobody = OperationID(4242)
        let results: [Completion] = [
            .waitTimer(.fired), .begin(.metadata(.failure(RouterError(.discoveryFailed, "x")))),
            .begin(.listening(.success(1))), .delivery(.delivered(.success(.delivered))),
            .code(.redeemed(.failure(SessionFailure(code: .tokenExchangeFailed, message: "x")))),
            .identification(.identified(.host)), .restore(.busNames(.success(BusSnapshot(id: "b", names: [])))),
        ]
        for result in results {
            #expect(router.completed(nobody, result, now: now) == Transition(), "\(result)")
        }
    }

    @Test(
        "a result of another machine's kind cannot reach the machine that waits: it does nothing, and the timer still waits"
    )
    func wrongKind() throws {
        var (router, s) = try Fixtures.router()
        let (wait, timer) = try router.holdWait(s.id, timeout: 5)
        let timerOp = try #require(timer)
        #expect(router.completed(timerOp, .begin(.listening(.success(1))), now: now) == Transition())
        #expect(router.isLive(wait) && router.isLive(timerOp), "the Wait and its timer are still there")
        let fired = router.completed(timerOp, .waitTimer(.fired), now: now)
        #expect(fired.core == [.finish(timerOp), .finish(wait)])
    }

    @Test("Login holds the call until the session's result, answered with the session and the result")
    func login() throws {
        var router = Router()
        let t = router.beginSession(
            Fixtures.request(), inputs: Fixtures.inputs(), caller: Fixtures.owner, login: true, now: now)
        let s = try #require(t.session)
        let op = try #require(t.held)
        #expect(t.changes == [.insert(s)] && t.answers.isEmpty)
        #expect(t.core.first == .hold(op, .wait(s.id, caller: Fixtures.owner, login: true, timer: nil)))
        router.take(t)
        #expect(router.held[op] == .wait(s.id, caller: Fixtures.owner, login: true, timer: nil))
        let done = router.route(Fixtures.callback(s), source: .link, via: "test", now: now)
        let result = try #require(done.session?.result)
        #expect(done.answers == [.answer(op, .loggedIn(s.id, .success(result)))] && done.core.contains(.finish(op)))
        // A login that ends without a code says why, with the session.
        var other = Router()
        let second = other.beginSession(
            Fixtures.request(), inputs: Fixtures.inputs(2), caller: Fixtures.owner, login: true, now: now)
        other.take(second)
        let secondOp = try #require(second.held)
        let secondID = try #require(second.session?.id)
        let expired = other.deadlineReached(secondID, now: now + 600)
        let failure = try #require(expired.session?.failure)
        #expect(expired.answers == [.answer(secondOp, .loggedIn(secondID, .failure(failure.error)))])
    }

    @Test(
        "a begin that needs the issuer's metadata: the call is held while it is fetched; then the session, or the refusal"
    )
    func discovery() throws {
        var router = Router()
        let request = OpenIDTests.exchangeRequest()
        let t = router.beginSession(request, inputs: Fixtures.inputs(), caller: Fixtures.owner, login: false, now: now)
        let op = try #require(t.held)
        #expect(t.changes.isEmpty && t.effects == [.start(op, .begin(.discover(issuer: OpenIDTests.issuer)))])
        #expect(
            t.core == [.track(op, .begin(Begin(request: request, inputs: Fixtures.inputs(), caller: Fixtures.owner)))])
        router.take(t)

        let metadata = OpenIDTests.metadata
        let begun = router.completed(op, .begin(.metadata(.success(metadata))), now: now)
        let s = try #require(begun.session)
        #expect(begun.changes == [.insert(s)] && begun.reply == .none && begun.ifWriteFails == .refuse)
        #expect(
            s.codeLogin.exchange
                == TokenExchange(
                    clientID: "client", tokenEndpoint: OpenIDTests.issuer + "/token",
                    jwksURI: OpenIDTests.issuer + "/jwks", expectsIDToken: true))
        #expect(s.codeLogin.options.requireIssuer && s.codeLogin.issuer == OpenIDTests.issuer)
        #expect(
            begun.answers == [
                .answer(op, .begun(s.id, authorizeURL: try Fixtures.authorizeURL(OpenIDTests.exchangeRequest())))
            ])
        #expect(begun.core.prefix(1) == [.finish(op)])

        let error = RouterError(
            .discoveryFailed, "https://id.example.com/realm/.well-known/openid-configuration answered 404")
        let failed = router.completed(op, .begin(.metadata(.failure(error))), now: now)
        #expect(
            failed.changes.isEmpty && failed.core == [.finish(op)] && failed.answers == [.answer(op, .refused(error))])

        // Metadata in, but the begin is refused after all (the per-client limit): the held call hears why.
        var tooMany = Router(limits: Limits(maxPendingPerOwner: 1))
        tooMany.insert(try Fixtures.session(Fixtures.request(), n: 9))
        let held = tooMany.beginSession(
            request, inputs: Fixtures.inputs(), caller: Fixtures.owner, login: false, now: now)
        let heldOp = try #require(held.held)
        tooMany.take(held)
        let refused = tooMany.completed(heldOp, .begin(.metadata(.success(metadata))), now: now)
        #expect(refused.changes.isEmpty && refused.core == [.finish(heldOp)])
        #expect(
            refused.answers.count == 1
                && {
                    if case .answer(_, .refused(let e)) = refused.answers[0] {
                        e.code == .limitsExceeded
                    } else {
                        false
                    }
                }())
    }

    @Test("a loopback begin: its listener first, on any port; the session and its URL name the port it got")
    func loopback() throws {
        var router = Router()
        let request = Fixtures.request(redirect: "http://127.0.0.1/cb")
        let t = router.beginSession(request, inputs: Fixtures.inputs(), caller: Fixtures.owner, login: false, now: now)
        let op = try #require(t.held)
        let id = Fixtures.secrets().id
        #expect(t.changes.isEmpty)
        #expect(
            t.effects == [
                .start(
                    op,
                    .begin(
                        .listen(
                            id, LoopbackBinding(addresses: ["127.0.0.1"], hostLiteral: "127.0.0.1", port: 0),
                            path: "/cb")))
            ])
        #expect(
            t.core == [.track(op, .begin(Begin(request: request, inputs: Fixtures.inputs(), caller: Fixtures.owner)))])
        router.take(t)

        let begun = router.completed(op, .begin(.listening(.success(40555))), now: now)
        let s = try #require(begun.session)
        #expect(s.id == id && s.codeLogin.redirect.string == "http://127.0.0.1:40555/cb")
        guard case .answer(op, .begun(id, let url))? = begun.answers.first else {
            Issue.record("not answered: \(begun.effects)")
            return
        }
        #expect(url.contains("redirect_uri=http%3A%2F%2F127.0.0.1%3A40555%2Fcb&"))
        // The listener is the session's now: closed if the insert cannot be written, kept otherwise.
        #expect(begun.compensation == [.closeListener(id)] && !begun.effects.contains(.closeListener(id)))
        #expect(begun.core.prefix(1) == [.finish(op)])

        // No port: the call is refused, nothing begun.
        let error = RouterError(.listenerFailed, "could not listen on 127.0.0.1: address in use")
        let failed = router.completed(op, .begin(.listening(.failure(error))), now: now)
        #expect(
            failed.changes.isEmpty && failed.core == [.finish(op)] && failed.answers == [.answer(op, .refused(error))])

        // Refused after all (the per-client limit reached meanwhile): the new listener closes with the refusal.
        var limited = Router(limits: Limits(maxPendingPerOwner: 1))
        let waiting = limited.beginSession(
            request, inputs: Fixtures.inputs(), caller: Fixtures.owner, login: false, now: now)
        let waitingOp = try #require(waiting.held)
        limited.take(waiting)
        limited.insert(try Fixtures.session(Fixtures.request(), n: 5))
        let late = limited.completed(waitingOp, .begin(.listening(.success(40556))), now: now)
        #expect(late.changes.isEmpty && late.effects.contains(.closeListener(id)) && late.core == [.finish(waitingOp)])
        #expect(
            late.answers.count == 1
                && {
                    if case .answer(_, .refused(let e)) = late.answers[0] { e.code == .limitsExceeded } else { false }
                }())
    }

    @Test("a loopback Login: the listener first, then the call goes on waiting for the result under the same operation")
    func loopbackLogin() throws {
        var router = Router()
        let t = router.beginSession(
            Fixtures.request(redirect: "http://127.0.0.1/cb"), inputs: Fixtures.inputs(), caller: Fixtures.owner,
            login: true, now: now)
        let op = try #require(t.held)
        router.take(t)
        let begun = router.completed(op, .begin(.listening(.success(40557))), now: now)
        let s = try #require(begun.session)
        #expect(
            begun.answers.isEmpty
                && begun.core.prefix(2) == [
                    .finish(op), .hold(op, .wait(s.id, caller: Fixtures.owner, login: true, timer: nil)),
                ], "the begin is done, and its call is held for the result under the same operation")
        router.take(begun)
        let done = router.route(
            "http://127.0.0.1:40557/cb?code=C&state=\(s.codeLogin.state)", source: .loopback(s.id), via: "test",
            now: now)
        let result = try #require(done.session?.result)
        #expect(done.answers == [.answer(op, .loggedIn(s.id, .success(result)))])
    }

    @Test(
        "a caller leaving while its BeginSession waits for metadata: the call is forgotten, and the metadata begins nothing"
    )
    func leaveWhileDiscovering() throws {
        var router = Router()
        let request = OpenIDTests.exchangeRequest()
        let t = router.beginSession(request, inputs: Fixtures.inputs(), caller: Fixtures.owner, login: false, now: now)
        let op = try #require(t.held)
        router.take(t)
        let gone = router.ownerGone(Fixtures.owner, now: now)
        #expect(
            gone.effects.first == .forget(op) && gone.core == [.finish(op)] && gone.answers.isEmpty
                && gone.changes.isEmpty)
        router.take(gone)
        #expect(
            router.completed(op, .begin(.metadata(.success(OpenIDTests.metadata))), now: now)
                == Transition())
        #expect(router.count == 0)
    }

    @Test(
        "a caller leaving while its BeginSession waits for its listener: the call is forgotten, and the listener does not outlive it"
    )
    func leaveWhileListening() throws {
        var router = Router()
        let t = router.beginSession(
            Fixtures.request(redirect: "http://127.0.0.1/cb"), inputs: Fixtures.inputs(), caller: Fixtures.owner,
            login: false, now: now)
        let op = try #require(t.held)
        router.take(t)
        let gone = router.ownerGone(Fixtures.owner, now: now)
        #expect(gone.effects.first == .forget(op) && gone.core == [.finish(op)] && gone.answers.isEmpty)
        router.take(gone)
        // The listener comes up after all: nothing is begun.
        let late = router.completed(op, .begin(.listening(.success(40558))), now: now)
        #expect(late.changes.isEmpty && router.count == 0)
        // Whatever was bound for the session that will never be is let go when its caller leaves.
        #expect(gone.effects.contains(.closeListener(Fixtures.secrets().id)))
    }

    @Test("the app behind a caller: recorded on its sessions, shown in the log, kept until it leaves")
    func identify() throws {
        var router = Router()
        let t = router.beginSession(
            Fixtures.request(), inputs: Fixtures.inputs(), caller: Fixtures.owner, login: false, now: now)
        let s = try #require(t.session)
        let op = try #require(t.started.first)
        router.take(t)
        #expect(router.callers[Fixtures.owner] == .unknown)
        let found = router.completed(op, .identification(.identified(.flatpak("org.example.App"))), now: now)
        #expect(found.core == [.finish(op), .caller(Fixtures.owner, .flatpak("org.example.App"))])
        #expect(
            found.session?.owner == Caller(name: Fixtures.owner, app: .flatpak("org.example.App"))
                && found.session?.id == s.id)
        #expect(found.ifWriteFails == .keepInMemory)
        #expect(
            found.effects.contains {
                if case .log(let l) = $0 { l.text.contains("flatpak:org.example.App") } else { false }
            })
        router.take(found)
        // A later session of the same caller starts with its app, and nothing more is asked.
        let next = router.beginSession(
            Fixtures.request(), inputs: Fixtures.inputs(2), caller: Fixtures.owner, login: false, now: now)
        #expect(next.session?.owner?.app == .flatpak("org.example.App") && next.started.isEmpty)
        // Gone from the bus: forgotten.
        let gone = router.ownerGone(Fixtures.owner, now: now)
        #expect(gone.core.contains(.caller(Fixtures.owner, nil)))
    }

    @Test("stopping: every held call hears why, a Wait that it may wait again; nothing changes")
    func stopping() throws {
        var (router, s) = try Fixtures.router()
        let (wait, _) = try router.holdWait(s.id)
        let request = OpenIDTests.exchangeRequest()
        let begin = router.beginSession(request, inputs: Fixtures.inputs(2), caller: ":1.5", login: false, now: now)
        router.take(begin)
        let t = router.stopping()
        #expect(t.changes.isEmpty && t.started.isEmpty)
        #expect(
            t.answers == [
                .answer(
                    wait,
                    .refused(
                        RouterError(
                            .timeout,
                            "linkrouterd is stopping; the session is kept and can be waited for again once it is back"))
                ),
                .answer(
                    try #require(begin.held),
                    .refused(RouterError(.internalError, "linkrouterd is stopping; try again once it is back"))),
            ])
    }

    @Test(
        "a replaced executable restarts the daemon at the end of a turn when only Waits are held, else once the last other operation has finished"
    )
    func restartWhenIdle() throws {
        var (router, s) = try Fixtures.router()
        _ = try router.holdWait(s.id, timeout: 30_000)
        let quiet = router.executableReplaced("/usr/bin/linkrouterd")
        #expect(quiet.core == [.restartWhenIdle])
        #expect(
            !quiet.effects.contains(.restart),
            "never in the middle of a turn: the rest of it could start work a stop would cut")
        #expect(quiet.changes.isEmpty && quiet.answers.isEmpty)
        router.take(quiet)
        #expect(router.restartIfIdle().effects == [.restart])

        // A BeginSession waiting for discovery: stopping would lose it.
        (router, _) = try Fixtures.router()
        let request = OpenIDTests.exchangeRequest()
        let begin = router.beginSession(request, inputs: Fixtures.inputs(2), caller: ":1.5", login: false, now: now)
        router.take(begin)
        let op = try #require(begin.held)
        let busy = router.executableReplaced("/usr/bin/linkrouterd")
        #expect(
            busy.effects == [
                .log(
                    LogLine(
                        .notice,
                        "/usr/bin/linkrouterd was replaced; restarting on the new executable once nothing is lost by it (now: 1 operations under way)"
                    ))
            ])
        router.take(busy)
        #expect(router.restartWanted)
        #expect(router.restartIfIdle().effects.isEmpty)
        // Asked again (a second rename): nothing new.
        #expect(router.executableReplaced("/usr/bin/linkrouterd").effects.isEmpty)
        router.apply(core: [.finish(op)])
        #expect(router.restartIfIdle().effects == [.restart])
    }

    @Test(
        "a held Login (its caller has no path to wait on again) and account tokens not yet in the keyring hold a restart back"
    )
    func restartHeldBack() throws {
        var (router, _) = try Fixtures.router()
        let login = router.beginSession(
            Fixtures.request(), inputs: Fixtures.inputs(3), caller: ":1.9", login: true, now: now)
        router.take(login)
        let held = try #require(login.held)
        router.take(router.executableReplaced("/usr/bin/linkrouterd"))
        // Finding out the caller's app is over; the Login alone is held.
        router.apply(core: router.running.keys.filter { $0 != held }.map { .finish($0) })
        #expect(router.running.isEmpty && router.held.calls.count == 1)
        #expect(router.restartIfIdle().effects.isEmpty, "a Login answered \"wait again\" would lose its session")
        router.apply(core: [.finish(held)])
        #expect(router.restartIfIdle().effects == [.restart])

        let key = AccountKey(name: "work", issuer: "https://id.example.com")
        let tokens = TokenSet(
            accessToken: "a", tokenType: "Bearer", expiresAt: now + 3600, refreshToken: "r", idToken: nil, scope: nil)
        router.apply(core: [
            .account(key, AccountKeeper(tokens: tokens, loaded: true, unsaved: "the keyring is locked"))
        ])
        #expect(router.restartIfIdle().effects.isEmpty, "the only copy of the tokens is in memory")
        router.apply(core: [.account(key, AccountKeeper(tokens: tokens, loaded: true))])
        #expect(router.restartIfIdle().effects == [.restart])
    }

    @Test("without a replaced executable, restartIfIdle never restarts")
    func noRestartUnasked() throws {
        let (router, _) = try Fixtures.router()
        #expect(!router.restartWanted)
        #expect(router.restartIfIdle().effects.isEmpty)
    }
}
