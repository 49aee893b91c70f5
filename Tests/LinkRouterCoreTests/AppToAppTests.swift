import LinkRouterCore
import Testing

/// The Vipps MobilePay app-to-app flow (shared/reference), without a bus.
@Suite("App-to-app: app_callback_uri, resume_uri, the document's error quirk")
struct AppToAppTests {
    let now = Fixtures.now
    static let resume = "https://auth.example.com/vipps-login-idp/index.html?tabId=7607f7f0"
    static var encodedResume: String { PercentEncoding.encode(resume) }

    func vipps(_ configure: (inout SessionRequest) -> Void = { _ in }) throws -> (Router, Session) {
        try Fixtures.router(
            Fixtures.request(
                redirect: "https://example.com/redirect", app: "https://example.com/app-callback", configure: configure)
        )
    }

    @Test("builder mode adds requested_flow and app_callback_uri to the authorize URL")
    func authorizeURL() throws {
        let url = try Fixtures.authorizeURL(
            Fixtures.request(redirect: "https://example.com/redirect", app: "https://example.com/app-callback"))
        #expect(url.contains("&requested_flow=app_to_app&app_callback_uri=https%3A%2F%2Fexample.com%2Fapp-callback"))
        #expect(
            url.hasPrefix(
                "https://auth.example.com/authorize?response_type=code&client_id=client&redirect_uri=https%3A%2F%2Fexample.com%2Fredirect&state="
            ))
        #expect(url.contains("&code_challenge=challenge-1&code_challenge_method=S256"))
    }

    @Test("the app step resumes, decoded exactly once; then the redirect completes")
    func flow() throws {
        var (router, s) = try vipps()
        let d = router.decide(
            "https://example.com/app-callback?state=\(s.codeLogin.state)&resume_uri=\(Self.encodedResume)",
            source: .link,
            now: now)
        guard case .resume(let resumed, let url, _, _) = d else {
            Issue.record("not resumed: \(d)")
            return
        }
        #expect(url == Self.resume)
        #expect(resumed.status == .resumed && resumed.codeLogin.resumeOpened)
        router.replace(resumed)
        // Opened at most once (R2).
        #expect(
            router.decide(
                "https://example.com/app-callback?state=\(s.codeLogin.state)&resume_uri=\(Self.encodedResume)",
                source: .link, now: now
            ).refusalCode == .replayed)
        guard
            case .complete(let done) = router.decide(
                "https://example.com/redirect?state=\(s.codeLogin.state)&code=C&scope=openid", source: .link, now: now)
        else {
            Issue.record("not completed")
            return
        }
        #expect(done.result?.code == "C")
        router.replace(done)
        // After the final callback the app step is a replay (R2).
        #expect(
            router.decide(
                "https://example.com/app-callback?state=\(s.codeLogin.state)&resume_uri=\(Self.encodedResume)",
                source: .link, now: now
            ).refusalCode == .replayed)
    }

    @Test("a resume_uri whose scheme is spelled HTTPS is opened with the canonical https (found by callback-fuzz)")
    func resumeSchemeCase() throws {
        let (router, s) = try vipps()
        let d = router.decide(
            "https://example.com/app-callback?state=\(s.codeLogin.state)&resume_uri="
                + PercentEncoding.encode("httpS://auth.example.com/vipps-login-idp/x"), source: .link, now: now)
        guard case .resume(_, let url, _, _) = d else {
            Issue.record("not resumed: \(d)")
            return
        }
        #expect(url == "https://auth.example.com/vipps-login-idp/x")
    }

    @Test("the remembered flow: the redirect alone completes")
    func remembered() throws {
        let (router, s) = try vipps()
        guard
            case .complete = router.decide(
                "https://example.com/redirect?state=\(s.codeLogin.state)&code=C", source: .link, now: now)
        else {
            Issue.record("not completed")
            return
        }
    }

    @Test("an app step with neither resume_uri nor error keeps waiting (R4)")
    func acknowledge() throws {
        let (router, s) = try vipps()
        guard
            case .acknowledge(let a) = router.decide(
                "https://example.com/app-callback?state=\(s.codeLogin.state)", source: .link, now: now)
        else {
            Issue.record("not acknowledged")
            return
        }
        #expect(a.status == .resumed && !a.codeLogin.resumeOpened)
    }

    @Test("one URI in both roles: parameters tell the steps apart")
    func sharedURI() throws {
        let (router, s) = try Fixtures.router(
            Fixtures.request(redirect: "https://example.com/app-callback", app: "https://example.com/app-callback"))
        let base = "https://example.com/app-callback?state=\(s.codeLogin.state)"
        guard case .resume = router.decide(base + "&resume_uri=" + Self.encodedResume, source: .link, now: now) else {
            Issue.record("resume")
            return
        }
        guard case .complete = router.decide(base + "&code=C", source: .link, now: now) else {
            Issue.record("complete")
            return
        }
        guard case .fail = router.decide(base + "&error=access_denied", source: .link, now: now) else {
            Issue.record("fail")
            return
        }
    }

    @Test("a code on a separate app_callback_uri is refused")
    func codeOnAppCallback() throws {
        let (router, s) = try vipps()
        #expect(
            router.decide("https://example.com/app-callback?state=\(s.codeLogin.state)&code=C", source: .link, now: now)
                .refusalCode == .callbackMismatch)
    }

    @Test("an error on either callback fails the session")
    func errors() throws {
        let (router, s) = try vipps()
        for uri in [
            "https://example.com/app-callback?state=\(s.codeLogin.state)&error=unknown_error",
            "https://example.com/redirect?state=\(s.codeLogin.state)&error=access_denied",
        ] {
            guard case .fail(let f) = router.decide(uri, source: .link, now: now) else {
                Issue.record("\(uri)")
                continue
            }
            #expect(f.failure?.code == .authorizationFailed)
        }
    }

    @Test(
        "resume_uri is an open redirect unless it is https on the endpoint's origin or a named host (R1)",
        arguments: [
            "https://evil.example/", "https://auth.example.com@evil/x", "https://auth.example.com.evil/x",
            "https:\\\\evil",
            "http://auth.example.com/vipps-login-idp/x", "javascript:alert(1)", "file:///etc/passwd",
            "https://auth.example.com:444/x",
            "https://auth.example.com/x%0D%0ASet-Cookie:a", "data:text/html,x", "//evil.example/x",
            "HTTPS://evil.example/",
        ])
    func resumeRefused(_ target: String) throws {
        let (router, s) = try vipps()
        let d = router.decide(
            "https://example.com/app-callback?state=\(s.codeLogin.state)&resume_uri=\(PercentEncoding.encode(target))",
            source: .link, now: now)
        #expect(d.refusalCode == .resumeRefused || d.refusalCode == .invalidArgument, "\(d)")
        #expect(router.session(s.id)?.status == .pending)
        #expect(router.session(s.id)?.codeLogin.resumeOpened == false)
    }

    @Test("resume_hosts and resume_path_prefix widen and narrow the allow-list")
    func resumeHosts() throws {
        let (router, s) = try vipps {
            $0.login.resumeHosts = ["api.vipps.no"]
            $0.login.resumePathPrefix = "/vipps-login-idp/"
        }
        let ok = "https://api.vipps.no/vipps-login-idp/index.html?tabId=1"
        guard
            case .resume(_, let url, _, _) = router.decide(
                "https://example.com/app-callback?state=\(s.codeLogin.state)&resume_uri=\(PercentEncoding.encode(ok))",
                source: .link, now: now)
        else {
            Issue.record("named host refused")
            return
        }
        #expect(url == ok)
        for bad in [
            "https://api.vipps.no.evil.example/vipps-login-idp/", "https://api.vipps.no/other/",
            "https://api.vipps.no:8443/vipps-login-idp/",
        ] {
            #expect(
                router.decide(
                    "https://example.com/app-callback?state=\(s.codeLogin.state)&resume_uri=\(PercentEncoding.encode(bad))",
                    source: .link, now: now
                ).refusalCode == .resumeRefused, "\(bad)")
        }
    }

    @Test("the document's ?error= quirk fails an app-to-app session and nothing else (R3)")
    func quirk() throws {
        let (router, s) = try vipps()
        guard
            case .fail(let f) = router.decide(
                "https://example.com/app-callback?state=\(s.codeLogin.state)?error=unknown_error", source: .link,
                now: now)
        else {
            Issue.record("quirk not read")
            return
        }
        #expect(f.failure?.providerError == "unknown_error")
        #expect(f.status == .failed)
        guard
            case .fail(let g) = router.decide(
                "https://example.com/app-callback?state=\(s.codeLogin.state)?error=access_denied&error_description=No",
                source: .link, now: now)
        else {
            Issue.record("quirk with description not read")
            return
        }
        #expect(g.failure?.providerDescription == "No")
        // Never a code or a resume from the tail, never on the redirect_uri, never a near-miss state.
        for uri in [
            "https://example.com/app-callback?state=\(s.codeLogin.state)?code=C",
            "https://example.com/app-callback?state=\(s.codeLogin.state)?resume_uri=\(Self.encodedResume)",
            "https://example.com/app-callback?state=\(s.codeLogin.state)?error=x&code=C",
            "https://example.com/app-callback?state=\(s.codeLogin.state)?error=x&error=y",
            "https://example.com/redirect?state=\(s.codeLogin.state)?error=unknown_error",
            "https://example.com/app-callback?state=\(s.codeLogin.state)x?error=unknown_error",
            "https://example.com/app-callback/?state=\(s.codeLogin.state)?error=unknown_error",
        ] {
            let d = router.decide(uri, source: .link, now: now)
            #expect(d.session == nil, "\(uri) → \(d)")
        }
        // Not for a session without an app callback.
        let (plain, p) = try Fixtures.router(Fixtures.request(redirect: "com.example.app:/cb"))
        #expect(
            plain.decide("com.example.app:/cb?state=\(p.codeLogin.state)?error=unknown_error", source: .link, now: now)
                .refusalCode == .unknownState)
    }
}
