import DBusKit
import DesktopIntegration
import LinkRouterAPI
import LinkRouterCore
import LinkRouterFiles
import SystemKit
import Testing

/// Threat model, "Redirect / resume" (R1–R6).
@Suite("Threat model R: redirect and resume")
struct RedirectThreatTests {
    static let origin = "https://api.vipps.no"

    /// An app-to-app session on the Vipps origin (adopted, as a merchant backend builds it).
    func vipps(_ h: Harness, resume: String = "client", extra: [(String, DBusValue)] = []) throws -> (
        path: String, state: String
    ) {
        let state = "RFiQdrl_lvJUpVmTRSKmsZRGLM0G1N1qh0WebZ1gD" + String(Int.random(in: 100...999))
        let url =
            Self.origin
            + "/access-management-1.0/access/oauth2/auth?app_callback_uri=com.example.app%3A%2Fapp&requested_flow=app_to_app&response_type=code&redirect_uri=com.example.app%3A%2Fcallback&state="
            + state
        let (path, _) = try h.app.begin(
            [
                ("authorize_url", .string(url)), ("open_browser", .boolean(false)), ("resume", .string(resume)),
                ("resume_path_prefix", .string("/vipps-login-idp/")),
            ] + extra)
        return (path, state)
    }

    @Test(
        "R1: resume_uri off the issuer's origin, with userinfo, look-alike, http, script, file, other port or encoded CR/LF is refused; the session stays pending"
    )
    func r1() throws {
        let h = try Harness()
        let (path, state) = try vipps(h, resume: "browser")
        for target in [
            "https://evil.example/", "https://api.vipps.no@evil/vipps-login-idp/",
            "https://api.vipps.no.evil/vipps-login-idp/", "https:\\\\evil",
            "http://api.vipps.no/vipps-login-idp/", "javascript:alert(1)", "file:///etc/passwd",
            "https://api.vipps.no:8443/vipps-login-idp/",
            "https://api.vipps.no/vipps-login-idp/x%0D%0ASet-Cookie:%20a", "https://api.vipps.no/other/path",
        ] {
            try h.expectRefusal(errorPrefix + "ResumeRefused") {
                _ = try h.app.route("com.example.app:/app?state=\(state)&resume_uri=\(PercentEncoding.encode(target))")
            }
        }
        #expect(try h.app.status(path) == "pending")
        #expect(
            try h.app.route(
                "com.example.app:/app?state=\(state)&resume_uri=\(PercentEncoding.encode(Self.origin + "/vipps-login-idp/index.html?tabId=1"))"
            ) == "resumed")
        #expect(h.desktop.waitForBrowser(Harness.browser) == [Self.origin + "/vipps-login-idp/index.html?tabId=1"])
    }

    @Test("R2: the same app callback twice, or after the final one, opens resume_uri at most once")
    func r2() throws {
        let h = try Harness()
        let (_, state) = try vipps(h, resume: "browser")
        let link =
            "com.example.app:/app?state=\(state)&resume_uri=\(PercentEncoding.encode(Self.origin + "/vipps-login-idp/i"))"
        #expect(try h.app.route(link) == "resumed")
        #expect(h.desktop.waitForBrowser(Harness.browser).count == 1)
        try h.expectRefusal(errorPrefix + "Replayed") { _ = try h.app.route(link) }
        #expect(try h.app.route("com.example.app:/callback?code=C&state=\(state)") == "completed")
        try h.expectRefusal(errorPrefix + "Replayed") { _ = try h.app.route(link) }
        #expect(h.desktop.waitForBrowser(Harness.browser).count == 1)
    }

    @Test("R3: the document's state=…?error= fails the app-to-app session, never completes it, never elsewhere")
    func r3() throws {
        let h = try Harness()
        let (path, state) = try vipps(h)
        try h.expectRefusal(errorPrefix + "UnknownState") {
            _ = try h.app.route("com.example.app:/callback?state=\(state)?error=unknown_error")
        }
        try h.expectRefusal(errorPrefix + "UnknownState") {
            _ = try h.app.route("com.example.app:/app?state=\(state)?code=C")
        }
        #expect(try h.app.route("com.example.app:/app?state=\(state)?error=unknown_error") == "failed")
        let e = try #require(dbusError { _ = try h.app.wait(path) })
        #expect(e.name == errorPrefix + "AuthorizationFailed" && e.message.contains("unknown_error"))
    }

    @Test("R4: an app callback with neither resume_uri nor error keeps waiting, with no browser action")
    func r4() throws {
        let h = try Harness()
        let (path, state) = try vipps(h, resume: "browser")
        #expect(try h.app.route("com.example.app:/app?state=\(state)") == "resumed")
        #expect(try h.app.counter("browsers_started") == 0)
        #expect(h.desktop.invocations(Harness.browser).isEmpty)
        #expect(try h.app.status(path) == "resumed")
        #expect(try h.app.route("com.example.app:/callback?code=C&state=\(state)") == "completed")
    }

    @Test(
        "R5: only http and https are forwarded, unchanged; other schemes are refused; a URL whose state matched is never forwarded"
    )
    func r5() throws {
        let h = try Harness()
        let (path, url) = try h.app.beginQuiet(redirect: "https://example.com/cb")
        for u in ["file:///etc/passwd", "smb://host/share", "sftp://host/x", "data:text/html,x", "javascript:alert(1)"]
        {
            try h.expectRefusal(errorPrefix + "NotACallback") { _ = try h.app.route(u) }
        }
        try h.expectRefusal(errorPrefix + "CallbackMismatch") {
            _ = try h.app.route("https://example.com/cb/?code=C&state=\(Harness.state(of: url))")
        }
        try h.expectRefusal(errorPrefix + "InvalidArgument") {
            _ = try h.app.route("https://example.com/cb?code=%zz&state=\(Harness.state(of: url))")
        }
        #expect(try h.app.route("https://example.org/page?a=%20#f") == "passthrough")
        #expect(h.desktop.waitForBrowser(Harness.browser) == ["https://example.org/page?a=%20#f"])
        #expect(try h.app.status(path) == "pending")
    }

    @Test("R6: a browser entry that leads back to linkrouter never loops, and launches are capped")
    func r6() throws {
        let h = try Harness()
        #expect(try h.desktop.linkctl("install", "--claim-https").status == 0)
        // The recorded browser is linkrouter's own entry: excluded, the real default is used.
        var record = try #require(InstallRecord.read(h.desktop.stateHome + "/linkrouter/install.conf"))
        record.browser = "linkrouter-https.desktop"
        try record.write(h.desktop.stateHome + "/linkrouter/install.conf")
        #expect(try h.app.route("https://example.org/a") == "passthrough")
        #expect(h.desktop.waitForBrowser(Harness.browser) == ["https://example.org/a"])
        // A link handed back by a browser linkrouter started is refused by linkctl (the hop variable).
        h.desktop.extraEnvironment[BrowserLauncher.hopVariable] = "1"
        let back = try h.desktop.linkctl("open", "--", "https://example.org/again")
        #expect(back.status == 1 && back.errorText.contains("loop"))
        // A storm of links, all waiting at once: the launch limit (10 a second) refuses some, and
        // every link is either a browser the daemon counted or a refusal the caller heard.
        let started = try h.app.counter("browsers_started")
        let answers = try h.app.burst("Route", (0..<30).map { [.string("https://example.org/storm\($0)")] })
        let opened = answers.filter { $0 == nil }.count
        let capped = answers.filter { $0 == errorPrefix + "LimitsExceeded" }.count
        #expect(opened + capped == 30, "\(answers)")
        #expect(try h.app.counter("browsers_started") - started == UInt64(opened))
        #expect(capped > 0 && opened > 0, "opened \(opened), capped \(capped)")
    }
}
