import DBusKit
import Foundation
import Glibc
import LinkRouterAPI
import LinkRouterCore
import SystemKit
import Testing

/// Real browsers and a real provider, parts no one here wrote (issue 15):
/// Debian's Chromium and Firefox ESR sign in at Debian's Glewlwyd through
/// linkrouter. The browser the daemon opens is the real one, driven through the
/// provider's real login page as a person would (Fixtures/browser_login.py:
/// WebDriver for Chromium, Marionette for Firefox); its redirect goes the way
/// every browser hands a scheme to the desktop (Chromium: xdg-open; Firefox: GIO).
/// Each browser's tests are a suite of their own, skipped (with the reason)
/// only when that browser, or the provider, is missing.
@Suite("Real browsers and a real provider", .serialized)
struct RealBrowserTests {
    /// `linkctl login` in the background; its JSON result once it exits, and
    /// once the browser the daemon opened is done too (it has saved its
    /// cookies and closed: the next login may use the profile).
    func login(_ h: Harness, _ args: [String], steps: String, timeoutMilliseconds: Int = 120_000) throws -> (
        status: Int32, json: String, errors: String
    ) {
        // One file for every login of a test (appended): the browser waits for it to gain a line.
        let out = Self.loginOutput(h)
        let lines = ((try? FileSystem.readText(out)) ?? "").split(separator: "\n").count
        let before = RealBrowser.results(steps).count
        let pid = try Subprocess.spawn(
            [Paths.linkctl, "login", "--json"] + args, environment: h.desktop.environment,
            stdout: .file(out), stderr: .file(out + ".err"))
        let status = Subprocess.wait(pid, timeoutMilliseconds: timeoutMilliseconds)
        #expect(
            eventually(timeoutMilliseconds: 60_000) { RealBrowser.results(steps).count > before },
            "the browser never finished")
        let json =
            ((try? FileSystem.readText(out)) ?? "").split(separator: "\n").dropFirst(lines).first.map(String.init) ?? ""
        return (status, json, (try? FileSystem.readText(out + ".err")) ?? "")
    }

    /// Where `linkctl login` prints; the browser fixture waits for it to gain a line before it
    /// closes (a browser closed at once may never hand the redirect on).
    static func loginOutput(_ h: Harness) -> String { h.desktop.root + "/login.out" }

    func customScheme(_ browser: RealBrowser) throws {
        let h = try Harness(browser: false)
        let provider = try Glewlwyd(desktop: h.desktop, redirectURIs: ["com.example.app:/callback"])
        let profile = h.desktop.root + "/profile"
        let steps = h.desktop.root + "/browser.jsonl"
        let id = try browser.install(
            h.desktop, profile: profile, provider: provider, out: steps, waitFor: Self.loginOutput(h))
        let args = [
            "--authorization-endpoint", provider.authorizationEndpoint, "--client-id", provider.clientID,
            "--redirect-uri", "com.example.app:/callback", "--scope", "openid", "--browser", id,
        ]
        let first = try login(h, args, steps: steps)
        #expect(first.status == 0, "\(first.errors) \(RealBrowser.results(steps))")
        let step = try #require(RealBrowser.results(steps).last)
        #expect(step["ok"] as? Bool == true && step["form_seen"] as? Bool == true, "\(step)")
        #expect((step["redirect"] as? String)?.hasPrefix("com.example.app:/callback?") == true)
        let code = try #require(first.json.jsonField("code"))
        let verifier = try #require(first.json.jsonField("code_verifier"))
        let nonce = try #require(first.json.jsonField("nonce"))
        #expect(first.json.jsonField("iss") == provider.issuer, "RFC 9207 iss on the redirect")
        let exchanged = try provider.exchange(
            h.desktop, code: code, verifier: verifier, redirectURI: "com.example.app:/callback")
        #expect(exchanged["status"] as? Int == 200, "\(exchanged)")
        let claims = try #require(exchanged["id_token_claims"] as? [String: Any])
        #expect(claims["nonce"] as? String == nonce && claims["iss"] as? String == provider.issuer, "\(claims)")

        // The remembered flow: the same profile, its session cookie; no password form anywhere.
        try browser.install(
            h.desktop, profile: profile, provider: provider, out: steps, remembered: true, waitFor: Self.loginOutput(h))
        let second = try login(h, args, steps: steps)
        #expect(second.status == 0, "\(second.errors) \(RealBrowser.results(steps))")
        let again = try #require(RealBrowser.results(steps).last)
        #expect(
            again["ok"] as? Bool == true && again["form_seen"] as? Bool == false
                && again["mode"] as? String == "remembered", "\(again)")
        #expect(second.json.jsonField("code") != code)
    }

    /// The directory each browser reads its managed policies from, bound over for the browser alone: Chromium's
    /// /etc/chromium; Firefox reads /etc/firefox/policies/policies.json (which linkctl writes; the directory is not
    /// on this machine, and a test must not make it), else its installation's distribution/policies.json, where the
    /// test puts the file linkctl wrote.
    static func policyDirectory(_ browser: RealBrowser) -> String {
        browser == .chromium ? "/etc/chromium" : "/usr/lib/firefox-esr/distribution"
    }

    /// The custom-scheme login with no allowance pre-seeded in the profile: the callback leaves the browser through
    /// the managed policy `linkctl browser-policy` wrote (in a root of the test's own, bound over the browser's
    /// /etc directory in a mount namespace of its own); the control, with no policy either, never reaches the app.
    func policyLogin(_ browser: RealBrowser) throws {
        let h = try Harness(browser: false)
        let provider = try Glewlwyd(desktop: h.desktop, redirectURIs: ["com.example.app:/callback"])
        let root = h.desktop.root + "/policy-root"
        let directory = Self.policyDirectory(browser)
        try FileSystem.makeDirectories(root + directory, permissions: 0o755)
        // What the browser's directory holds besides policies comes along.
        for file in FileSystem.list(directory) where FileSystem.status(directory + "/" + file)?.kind == .regular {
            try FileSystem.writeAtomically(
                root + directory + "/" + file, try FileSystem.read(directory + "/" + file), permissions: 0o644)
        }
        let steps = h.desktop.root + "/browser.jsonl"
        let args = [
            "--authorization-endpoint", provider.authorizationEndpoint, "--client-id", provider.clientID,
            "--redirect-uri", "com.example.app:/callback", "--scope", "openid",
        ]
        // The control: no pre-seeded allowance and no policy: the browser asks, nobody answers, no code arrives.
        let id = try browser.install(
            h.desktop, profile: h.desktop.root + "/profile-control", provider: provider, out: steps, policyRoot: root)
        let control = try login(h, args + ["--browser", id, "--timeout", "15000"], steps: steps)
        #expect(control.status == 3, "a callback left the browser with no allowance: \(control.status) \(control.json)")
        // The policy, for exactly this scheme from exactly the provider's origin.
        let endpoint = provider.authorizationEndpoint
        let host = try #require(endpoint.range(of: "://")?.upperBound)
        let origin = String(endpoint[..<(endpoint[host...].firstIndex(of: "/") ?? endpoint.endIndex)])
        let written = try h.desktop.linkctl("browser-policy", "com.example.app", "--origin", origin, "--root", root)
        #expect(written.status == 0, "\(written.errorText)")
        if browser == .firefox {
            try FileSystem.writeAtomically(
                root + directory + "/policies.json", try FileSystem.read(root + "/etc/firefox/policies/policies.json"),
                permissions: 0o644)
        }
        try browser.install(
            h.desktop, profile: h.desktop.root + "/profile", provider: provider, out: steps,
            waitFor: Self.loginOutput(h), policyRoot: root)
        let allowed = try login(h, args + ["--browser", id], steps: steps)
        #expect(allowed.status == 0, "\(allowed.errors) \(RealBrowser.results(steps).last ?? [:])")
        #expect(allowed.json.jsonField("code") != nil, "\(allowed.json)")
        // Removed again: linkrouter's Chromium file goes; Firefox's keeps what else it held.
        #expect(try h.desktop.linkctl("browser-policy", "com.example.app", "--remove", "--root", root).status == 0)
        #expect(!FileSystem.exists(root + "/etc/chromium/policies/managed/linkrouter.json"))
    }

    func issuerLogin(_ browser: RealBrowser) throws {
        let h = try Harness(browser: false)
        let provider = try Glewlwyd(desktop: h.desktop, redirectURIs: ["com.example.app:/callback"])
        let steps = h.desktop.root + "/browser.jsonl"
        let id = try browser.install(
            h.desktop, profile: h.desktop.root + "/profile", provider: provider, out: steps,
            waitFor: Self.loginOutput(h))
        let r = try login(
            h,
            [
                "--issuer", provider.issuer, "--client-id", provider.clientID, "--redirect-uri",
                "com.example.app:/callback",
                "--scope", "openid email profile", "--browser", id,
            ], steps: steps)
        #expect(r.status == 0, "\(r.errors) \(RealBrowser.results(steps))")
        let json = try #require(
            try? JSONSerialization.jsonObject(with: Data(r.json.utf8)) as? [String: Any], "\(r.json)")
        #expect(json["access_token"] as? String != nil && json["code"] == nil)
        let claims = try #require(json["claims"] as? [String: Any])
        #expect(
            claims["iss"] as? String == provider.issuer && claims["aud"] as? String == provider.clientID
                && claims["email"] as? String == "alice@example.com")
    }

    func loopback(_ browser: RealBrowser) throws {
        let h = try Harness(browser: false)
        let port = try RawSocket.freePort()
        let redirect = "http://127.0.0.1:\(port)/callback"
        let provider = try Glewlwyd(desktop: h.desktop, redirectURIs: [redirect])
        let profile = h.desktop.root + "/profile"
        let steps = h.desktop.root + "/browser.jsonl"
        let shots = TestLogs.directory
        let signedIn = shots + "/loopback-signed-in-\(browser.rawValue).png"
        let id = try browser.install(h.desktop, profile: profile, provider: provider, out: steps, screenshot: signedIn)
        let args = [
            "--authorization-endpoint", provider.authorizationEndpoint, "--client-id", provider.clientID,
            "--redirect-uri", redirect, "--scope", "openid", "--browser", id,
        ]
        let ok = try login(h, args, steps: steps)
        #expect(ok.status == 0, "\(ok.errors) \(RealBrowser.results(steps))")
        #expect(ok.json.jsonField("redirect_uri") == redirect)
        let exchanged = try provider.exchange(
            h.desktop, code: try #require(ok.json.jsonField("code")),
            verifier: try #require(ok.json.jsonField("code_verifier")), redirectURI: redirect)
        #expect(exchanged["status"] as? Int == 200, "\(exchanged)")
        #expect(FileSystem.status(signedIn)?.size ?? 0 > 1000, "no screenshot at \(signedIn)")

        // The provider refuses (prompt=none needs an id_token_hint at Glewlwyd): the error page.
        let refused = shots + "/loopback-error-\(browser.rawValue).png"
        try browser.install(
            h.desktop, profile: profile, provider: provider, out: steps, remembered: true, screenshot: refused)
        let failed = try login(h, args + ["--param", "prompt=none"], steps: steps)
        #expect(failed.status == 2, "a provider refusal is exit 2: \(failed.errors)")
        #expect(
            failed.errors.contains("AuthorizationFailed") && failed.errors.contains("invalid_request"),
            "\(failed.errors)")
        #expect(FileSystem.status(refused)?.size ?? 0 > 1000, "no screenshot at \(refused)")
        print("loopback pages of \(browser.rawValue): \(signedIn) \(refused)")
    }

    /// Begins an app-to-app login at the TLS stand-in in real Chromium; the first
    /// leg's request at the stand-in (it set the `leg1` cookie in that browser).
    func beginAppToApp(_ h: Harness, _ standIn: TLSStandIn, _ browser: RunningBrowserEntry) throws -> (
        path: String, authorize: [String: Any]
    ) {
        let (path, _) = try h.app.begin([
            ("authorization_endpoint", .string(standIn.origin + "/authorize")), ("client_id", .string("merchant")),
            ("redirect_uri", .string("com.example.app:/callback")),
            ("app_callback_uri", .string("com.example.app:/app-callback")),
            ("scope", .string("openid")), ("browser", .string(browser.id)),
        ])
        let authorize = try #require(
            eventuallyValue(timeoutMilliseconds: 60_000) { standIn.requests("/authorize").first },
            "Chromium never reached the stand-in: \(browser.starts())")
        #expect((authorize["user_agent"] as? String)?.contains("HeadlessChrome") == true)
        return (path, authorize)
    }

    /// The link the Vipps app opens to return to the merchant app, through the real xdg-open.
    func appStep(_ h: Harness, _ authorize: [String: Any]) throws -> Subprocess.Outcome {
        let state = try #require((authorize["query"] as? [String: Any])?["state"] as? String)
        let resume = try #require(authorize["resume_uri"] as? String)
        return try h.desktop.xdgOpen(
            "com.example.app:/app-callback?state=\(state)&resume_uri=\(PercentEncoding.encode(resume))")
    }

    func appToApp() throws {
        let h = try Harness(browser: false)
        let standIn = try TLSStandIn(desktop: h.desktop)
        let browser = try RunningBrowserEntry(
            h.desktop, id: "test-chromium.desktop", scheme: "com.example.app", allowOrigin: standIn.origin)
        defer { browser.stop() }
        let (path, authorize) = try beginAppToApp(h, standIn, browser)
        #expect(authorize["set_cookie"] as? Bool == true)

        let step = try appStep(h, authorize)
        #expect(step.status == 0, "\(step.errorText)")
        let waited = Result { () throws(DBusError) in try h.app.wait(path, timeoutMilliseconds: 60_000) }
        let result = try #require(
            try? waited.get(), "\(waited) starts: \(browser.starts()) at the stand-in: \(standIn.requests("/resume"))")
        let resumed = standIn.requests("/resume")
        #expect(resumed.count == 1, "\(resumed)")
        let first = try #require(resumed.first)
        #expect(
            first["cookie_matches"] as? Bool == true && first["status"] as? Int == 302,
            "the resume request lacked the first leg's cookie: \(first)")
        let location = try #require(first["location"] as? String)
        #expect(result["code"].map { location.contains("code=" + $0) } == true, "\(result) vs \(location)")
        #expect(result["code_verifier"] != nil)
        // One browser: the second start of the entry reached the running one.
        let starts = browser.starts()
        #expect(starts.count == 2 && starts.last?["forwarded"] as? String == "devtools", "\(starts)")
    }

    func appToAppBrowserGone() throws {
        let h = try Harness(browser: false)
        let standIn = try TLSStandIn(desktop: h.desktop)
        let browser = try RunningBrowserEntry(
            h.desktop, id: "test-chromium.desktop", scheme: "com.example.app", allowOrigin: standIn.origin)
        defer { browser.stop() }
        // Another browser is the default: it must not be used, as it has no cookie.
        try h.desktop.addCookieBrowser("other.desktop", cafile: standIn.info["ca_cert"] as! String, makeDefault: true)
        let (path, authorize) = try beginAppToApp(h, standIn, browser)
        // The browser is uninstalled while the user is in the Vipps app.
        browser.stop()
        try FileSystem.remove(h.desktop.applications + "/" + browser.id)

        let step = try appStep(h, authorize)
        #expect(step.status != 0)
        #expect(step.errorText.contains("BrowserFailed") && step.errorText.contains(browser.id), "\(step.errorText)")
        #expect(try h.app.status(path) == "failed")
        try h.expectRefusal(errorPrefix + "BrowserFailed") { _ = try h.app.wait(path, timeoutMilliseconds: 5000) }
        #expect(standIn.requests("/resume").isEmpty && h.desktop.browserSteps().isEmpty, "nothing else was opened")
        #expect(browser.starts().count == 1)
        #expect(h.app.ping())
    }
}

extension RawSocket {
    /// A loopback port free right now (the provider must register the exact one).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var sa = sockaddr_in()
        sa.sin_family = sa_family_t(AF_INET)
        sa.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        _ = withUnsafePointer(to: &sa) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var out = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &out) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        let port = Int(UInt16(bigEndian: out.sin_port))
        guard port > 0 else { throw SystemError("find a free port", code: errno) }
        return port
    }
}

extension RealBrowserTests {
    @Suite(
        "Chromium", .serialized,
        .enabled(if: RealBrowser.chromium.unavailable == nil, "\(RealBrowser.chromium.unavailable ?? "")"))
    struct Chromium {
        @Test(
            "custom scheme: linkctl login --browser opens the real browser at Glewlwyd's login page; the 302 reaches the desktop; the code exchanges for an ID token with our nonce and iss; a second login in the profile shows no login form"
        )
        func customScheme() throws { try RealBrowserTests().customScheme(.chromium) }

        @Test(
            "Chromium with no allowance pre-seeded: the custom-scheme callback leaves the browser through the managed policy linkctl browser-policy wrote for exactly that scheme and origin (AutoLaunchProtocolsFromOrigins); without it, it never does",
            .enabled(if: geteuid() == 0, "binding the test's policies over /etc/chromium needs root"))
        func policy() throws { try RealBrowserTests().policyLogin(.chromium) }

        @Test(
            "the whole login in a real browser: linkctl login --issuer --json prints tokens whose ID token the daemon verified"
        )
        func issuerLogin() throws { try RealBrowserTests().issuerLogin(.chromium) }

        @Test(
            "loopback with the exact port registered: the browser lands on the daemon's page, screenshotted when it succeeds and when the provider refuses"
        )
        func loopback() throws { try RealBrowserTests().loopback(.chromium) }

        @Test(
            "app-to-app in real Chromium: the first leg sets a cookie at a TLS stand-in; the app step arrives through xdg-open; resume_uri reopens in the same browser, which has that cookie, and the login completes"
        )
        func appToApp() throws { try RealBrowserTests().appToApp() }

        @Test(
            "app-to-app when the browser that began the login is gone: nothing else opens, the app step and the owner's Wait both say BrowserFailed naming it, the daemon stays up"
        )
        func appToAppBrowserGone() throws { try RealBrowserTests().appToAppBrowserGone() }
    }

    @Suite(
        "Firefox ESR", .serialized,
        .enabled(if: RealBrowser.firefox.unavailable == nil, "\(RealBrowser.firefox.unavailable ?? "")"))
    struct Firefox {
        @Test(
            "custom scheme: linkctl login --browser opens the real browser at Glewlwyd's login page; the 302 reaches the desktop; the code exchanges for an ID token with our nonce and iss; a second login in the profile shows no login form"
        )
        func customScheme() throws { try RealBrowserTests().customScheme(.firefox) }

        @Test(
            "Firefox ESR with no allowance pre-seeded: the custom-scheme callback leaves the browser through the managed policies linkctl browser-policy wrote (AutoLaunchProtocolsFromOrigins, Handlers); without them, it never does",
            .enabled(if: geteuid() == 0, "binding the test's policies over /etc/firefox-esr needs root"))
        func policy() throws { try RealBrowserTests().policyLogin(.firefox) }

        @Test(
            "the whole login in a real browser: linkctl login --issuer --json prints tokens whose ID token the daemon verified"
        )
        func issuerLogin() throws { try RealBrowserTests().issuerLogin(.firefox) }

        @Test(
            "loopback with the exact port registered: the browser lands on the daemon's page, screenshotted when it succeeds and when the provider refuses"
        )
        func loopback() throws { try RealBrowserTests().loopback(.firefox) }
    }
}
